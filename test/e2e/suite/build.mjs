// Bundles the mocha suite the end-to-end run loads into the extension host (out/e2e/suite/index.js, `run()` entry).
// The extension itself is built by esbuild.js. Usage: node test/e2e/suite/build.mjs
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

// mocha stays external so its reporters resolve from node_modules at run time.
await esbuild.build({ ...common, entryPoints: ['test/e2e/suite/index.ts'], outfile: 'out/e2e/suite/index.js', external: ['vscode', 'mocha'] });
console.log('built out/e2e/suite/index.js');
