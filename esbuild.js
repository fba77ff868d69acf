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

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  external: ['vscode'],
  // jsonc-parser's UMD build hides its requires from the bundler; its ESM build bundles cleanly.
  mainFields: ['module', 'main'],
  define: { __CLI_VERSION__: JSON.stringify(version) },
  logLevel: 'silent',
  plugins: watch ? [problemMatcherPlugin] : [],
};

const entries = [
  { entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
];
if (fs.existsSync(path.join(__dirname, 'src/extension.ts'))) {
  entries.push({ entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' });
}

async function main() {
  const contexts = await Promise.all(entries.map((entry) => esbuild.context({ ...common, ...entry })));
  if (watch) {
    await Promise.all(contexts.map((ctx) => ctx.watch()));
    return;
  }
  await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
  fs.chmodSync(path.join(__dirname, 'dist/cli.js'), 0o755);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
