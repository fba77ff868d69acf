// The guard a client runs for every guarded server is its own bundle (dist/guard.js): built the way esbuild.js builds
// it, it holds this repository's guard code and nothing from node_modules (no SDK, zod, config parsers, prom-client).

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import * as esbuild from 'esbuild';
import { faultStdio } from '../../helpers/servers';

const ROOT = path.resolve(__dirname, '..', '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { bundleOptions } = require(path.join(ROOT, 'esbuild.js')) as {
  bundleOptions(options: { production: boolean }): esbuild.BuildOptions;
};

void describe('the guard bundle', () => {
  void it('carries no dependency: only the guard, its upstream and its status channel', async () => {
    const built = await esbuild.build({
      ...bundleOptions({ production: true }),
      entryPoints: [path.join(ROOT, 'src/guardCli.ts')],
      write: false,
      outfile: 'guard.js',
      metafile: true,
    });
    const inputs = Object.keys(built.metafile.inputs);
    assert.deepEqual(
      inputs.filter((input) => input.includes('node_modules')),
      [],
    );
    for (const needed of ['src/guard/guardSession.ts', 'src/guard/stdioUpstream.ts', 'src/guard/statusChannel.ts'])
      assert.ok(inputs.includes(needed), inputs.join('\n'));
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

  void it('running a stdio server, loads none of the Node modules only a sandbox, a stale lock or a profiler needs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-guard-modules-'));
    try {
      // Node lists every built-in module a process has loaded; this preload prints the list as the guard exits.
      const preload = path.join(dir, 'print-modules.cjs');
      writeFileSync(
        preload,
        "process.on('exit', () => require('node:fs').writeSync(2, '\\nMODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n",
      );
      const server = faultStdio('none');
      const guard = spawn(
        process.execPath,
        ['--require', preload, path.join(ROOT, 'dist', 'cli.js'), 'guard', '--', server.command, ...server.args],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let stderr = '';
      guard.stderr.setEncoding('utf8');
      guard.stderr.on('data', (chunk: string) => (stderr += chunk));
      const answered = new Promise<void>((resolve) => guard.stdout.once('data', () => resolve()));
      const exited = new Promise<void>((resolve) => guard.once('exit', () => resolve()));
      guard.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } } })}\n`,
      );
      await answered;
      guard.stdin.end();
      await exited;
      const listed = /MODULES (.*)/.exec(stderr);
      assert.ok(listed, stderr);
      const modules = JSON.parse(listed[1]!) as string[];
      assert.ok(modules.includes('NativeModule child_process'), 'the list is the one of the guard process');
      for (const lazy of ['NativeModule crypto', 'NativeModule perf_hooks', 'NativeModule fs/promises'])
        assert.ok(!modules.includes(lazy), `${lazy} was loaded`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
