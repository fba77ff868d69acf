// Bundles the extension and the CLI. Type-checking is separate (`tsc --noEmit`) so builds stay fast.
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const production = process.argv.includes('--production');
const { version } = require('./package.json');
const watch = process.argv.includes('--watch');

/** Prints errors in the format VS Code's $esbuild-watch problem matcher understands. */
const problemMatcherPlugin = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

/** The options every bundle is built with; the benchmarks import them so the size they measure is the size shipped. */
function bundleOptions({ production: minify }) {
  return {
    absWorkingDir: __dirname,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify,
    sourcemap: !minify,
    sourcesContent: false,
    external: ['vscode'],
    // jsonc-parser's UMD build hides its requires from the bundler; its ESM build bundles cleanly.
    mainFields: ['module', 'main'],
    // The SDK's Node shim pulls in AJV for tool output schemas, which a monitor never validates (src/mcp/sdkShims.ts).
    alias: { '@modelcontextprotocol/client/_shims': path.join(__dirname, 'src/mcp/sdkShims.ts') },
    define: { __CLI_VERSION__: JSON.stringify(version) },
    logLevel: 'silent',
  };
}

/**
 * Code the extension needs only for some files or one command, bundled into its own file under dist/lazy and required
 * on the first use of one of its exports, so dist/extension.js neither carries nor evaluates it: the parsers of some
 * config formats (Continue's YAML blocks, Codex's config.toml), the rewrite behind Guard This Server, and the code of
 * two other single commands. The key is what the extension's sources import; the value is the module bundled into
 * dist/lazy/<name>.js. The CLI bundles them as usual.
 */
const LAZY_MODULES = {
  yaml: 'yaml',
  'smol-toml': 'smol-toml',
  '../core/config/guardRewrite': './src/core/config/guardRewrite.ts',
  // Each behind one command (two for the guard's): Create Config, Copy Status Report, Guard This Server and Unguard.
  './createConfig': './src/vscode/createConfig.ts',
  './guardEntryEdit': './src/vscode/guardEntryEdit.ts',
  '../present/report': './src/present/report.ts',
};
const lazyName = (specifier) => path.basename(specifier);

/**
 * The names a module exports: a package's from its CommonJS build (the one the bundle would otherwise carry), a
 * TypeScript source's from a throwaway ESM build of it, since it cannot be required here.
 */
async function exportNames(module) {
  if (!module.endsWith('.ts')) return Object.keys(require(module));
  const result = await esbuild.build({
    ...bundleOptions({ production: false }),
    entryPoints: [module],
    format: 'esm',
    write: false,
    metafile: true,
    sourcemap: false,
  });
  return Object.values(result.metafile.outputs).flatMap((output) => output.exports ?? []);
}

/**
 * In the extension bundle, each lazy module (but `own`, in the lazy file that is that module) becomes an object whose
 * getters load dist/lazy/<name>.js once.
 */
const lazyModulesPlugin = (own) => ({
  name: 'lazy-modules',
  setup(build) {
    const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const filter = new RegExp(
      `^(${Object.keys(LAZY_MODULES)
        .filter((specifier) => LAZY_MODULES[specifier] !== own)
        .map(escape)
        .join('|')})$`,
    );
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'lazy-module' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-module' }, async (args) => {
      const module = LAZY_MODULES[args.path];
      const names = await exportNames(module.endsWith('.ts') ? path.resolve(__dirname, module) : module);
      // A computed path: esbuild leaves this require alone, as it does dist/metrics.js's (src/vscode/metricsEndpoint.ts).
      // __dirname is the folder of the bundle this lands in: dist/ for the extension, dist/lazy/ for a lazy file.
      const folder = own === null ? "__dirname, 'lazy'" : '__dirname';
      const contents = [
        'let loaded;',
        `function load() { return loaded ??= require(require('node:path').join(${folder}, ${JSON.stringify(`${lazyName(args.path)}.js`)})); }`,
        `module.exports = Object.defineProperties({}, Object.fromEntries(${JSON.stringify(names)}.map((name) => [name, { enumerable: true, get: () => load()[name] }])));`,
      ].join('\n');
      return { contents, loader: 'js', resolveDir: __dirname };
    });
  },
});

/**
 * The extension's bundles in `outDir`: dist/extension.js and every file it may require later (the lazy parsers,
 * dist/metrics.js). The bench builds the same list, so the size it reports is the size of all of them.
 */
function extensionEntries(outDir) {
  return [
    { entryPoints: ['src/extension.ts'], outfile: path.join(outDir, 'extension.js'), plugins: [lazyModulesPlugin(null)] },
    ...Object.entries(LAZY_MODULES).map(([specifier, module]) => ({
      stdin: {
        contents: `module.exports = require(${JSON.stringify(module)});`,
        resolveDir: __dirname,
        loader: 'js',
        sourcefile: `lazy-${lazyName(specifier)}.js`,
      },
      outfile: path.join(outDir, 'lazy', `${lazyName(specifier)}.js`),
      // A lazy module that imports another (the guard rewrite reads TOML) loads it from its own file, not a copy.
      plugins: [lazyModulesPlugin(module)],
    })),
    // prom-client and OpenTelemetry: required by the extension only when mcpHealth.metrics.listen is set.
    { entryPoints: ['src/metrics/index.ts'], outfile: path.join(outDir, 'metrics.js') },
  ];
}

const common = { ...bundleOptions({ production }), plugins: watch ? [problemMatcherPlugin] : [] };

const entries = [
  // The `mcp-health` command: a launcher that loads the guard's own small bundle for `guard`, the full CLI otherwise.
  { entryPoints: ['src/bin.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/cli.ts'], outfile: 'dist/main.js' },
  { entryPoints: ['src/guardCli.ts'], outfile: 'dist/guard.js' },
];
if (fs.existsSync(path.join(__dirname, 'src/extension.ts'))) {
  entries.push(...extensionEntries('dist'));
} else {
  entries.push({ entryPoints: ['src/metrics/index.ts'], outfile: 'dist/metrics.js' });
}

// VS Code's MCP sandbox runtime (@vscode/sandbox-runtime's `srt`), run as its own process for each sandboxed server.
// It is ESM and finds its seccomp helper beside itself (vendor/seccomp/<arch>), so both are copied into dist/sandbox.
const sandboxRuntime = path.join(__dirname, 'node_modules/@vscode/sandbox-runtime');
async function buildSandboxRuntime() {
  if (!fs.existsSync(sandboxRuntime)) return;
  await esbuild.build({
    ...bundleOptions({ production }),
    entryPoints: [path.join(sandboxRuntime, 'dist/cli.js')],
    outfile: 'dist/sandbox/srt.mjs',
    format: 'esm',
    sourcemap: false,
    alias: {},
    define: {},
    // CommonJS dependencies (commander) still call require() for Node's own modules.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  fs.cpSync(path.join(sandboxRuntime, 'vendor/seccomp'), path.join(__dirname, 'dist/sandbox/vendor/seccomp'), {
    recursive: true,
    filter: (source) => !/\.(ts|c)$/.test(source),
  });
}

async function main() {
  if (!watch) await buildSandboxRuntime();
  const contexts = await Promise.all(
    entries.map((entry) => esbuild.context({ ...common, ...entry, plugins: [...common.plugins, ...(entry.plugins ?? [])] })),
  );
  if (watch) {
    await Promise.all(contexts.map((ctx) => ctx.watch()));
    return;
  }
  await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
  fs.chmodSync(path.join(__dirname, 'dist/cli.js'), 0o755);
}

module.exports = { bundleOptions, extensionEntries };

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
