// Bundles what the end-to-end run loads: the extension (dist/extension.js, as esbuild.js builds it) and the mocha
// suite (out/e2e/suite/index.js, `run()` entry). Building the extension here too keeps the e2e run independent of
// the CLI bundle. Usage: node test/e2e/suite/build.mjs
import * as esbuild from 'esbuild';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
  // jsonc-parser's "main" is a UMD build with dynamic requires a bundle cannot follow; its ESM build bundles cleanly.
  mainFields: ['module', 'main'],
};

await Promise.all([
  esbuild.build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  // mocha stays external so its reporters resolve from node_modules at run time.
  esbuild.build({ ...common, entryPoints: ['test/e2e/suite/index.ts'], outfile: 'out/e2e/suite/index.js', external: ['vscode', 'mocha'] }),
]);
console.log('built dist/extension.js and out/e2e/suite/index.js');
