// The guard a client runs for every guarded server is its own bundle (dist/guard.js): built the way esbuild.js builds
// it, it holds this repository's guard code and nothing from node_modules (no SDK, zod, config parsers, prom-client).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

  void it('copied alone (as Guard This Server keeps it), refuses what only the full CLI does with a clear message', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-solo-guard-'));
    try {
      const solo = path.join(dir, 'mcp-health-guard.js');
      copyFileSync(path.join(ROOT, 'dist', 'guard.js'), solo);
      const run = spawnSync(process.execPath, [solo, 'guard', '--url', 'http://127.0.0.1:9/mcp'], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /runs stdio servers only/);
      assert.doesNotMatch(run.stderr, /MODULE_NOT_FOUND|Cannot find module/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
