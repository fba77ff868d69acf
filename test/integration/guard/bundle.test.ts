// The guard a client runs for every guarded server is its own bundle (dist/guard.js): built the way esbuild.js builds
// it, it holds this repository's guard code and nothing from node_modules (no SDK, zod, config parsers, prom-client).

import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(__dirname, '..', '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { bundleOptions } = require(path.join(ROOT, 'esbuild.js')) as { bundleOptions(options: { production: boolean }): esbuild.BuildOptions };

void describe('the guard bundle', () => {
  void it('carries no dependency: only the guard, its upstream and its status channel', async () => {
    const built = await esbuild.build({ ...bundleOptions({ production: true }), entryPoints: [path.join(ROOT, 'src/guardCli.ts')], write: false, outfile: 'guard.js', metafile: true });
    const inputs = Object.keys(built.metafile.inputs);
    assert.deepEqual(inputs.filter((input) => input.includes('node_modules')), []);
    for (const needed of ['src/guard/guardSession.ts', 'src/guard/stdioUpstream.ts', 'src/guard/statusChannel.ts']) assert.ok(inputs.includes(needed), inputs.join('\n'));
    assert.ok(!inputs.includes('src/guard/httpUpstream.ts'), 'the HTTP upstream (and the SDK with it) loads through the full CLI');
  });
});
