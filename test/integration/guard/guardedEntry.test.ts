// A config entry that runs through `mcp-health guard`, seen by MCP Health's monitor (the extension's registry) and by
// `list --json`: never started, shown with the real running guard's figures, including a restart after the upstream
// was killed.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { systemClock } from '../../../src/core/clock';
import { GuardPoller } from '../../../src/core/guardReport';
import type { ServerConfig } from '../../../src/core/model';
import { createRegistry } from '../../../src/core/monitor';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';
import { readGuardStatuses } from '../../../src/guard/statusChannel';
import { createNodeConnector } from '../../../src/mcp';
import { faultStdio } from '../../helpers/servers';
import { waitFor } from '../../helpers/wait';
import { CLI, isAlive, waitUntilDead } from './support';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'guarded-entry-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const silent = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

void describe('a guarded config entry in MCP Health', () => {
  void it('the monitor and list --json show the running guard (restart after the upstream is killed) and start no copy', async () => {
    const runtime = path.join(dir, 'runtime');
    const socketDir = path.join(runtime, 'mcp-health');
    const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
    const server = faultStdio('none');
    const guard = spawn(process.execPath, [CLI, 'guard', '--name', 'entry', '--', server.command, ...server.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    let out = '';
    guard.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    guard.stderr.resume();
    const upstreams: number[] = [];
    const registry = createRegistry({
      connector: createNodeConnector({ logger: silent, clientInfo: { name: 'test', version: '1' } }),
      clock: systemClock,
      logger: silent,
      settings: defaultMonitorSettings,
      guards: new GuardPoller(systemClock, () => readGuardStatuses(2000, socketDir), 100),
    });
    try {
      guard.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      );
      await waitFor('initialize answer', () => (out.includes('"id":1') ? true : undefined));

      // The entry as a client's config holds it: the CLI by a path an install would have, so a wrongly started copy
      // really runs and leaves its marker.
      const marker = path.join(dir, 'started-a-copy');
      const installed = path.join(dir, 'mcp-health', 'dist');
      mkdirSync(installed, { recursive: true });
      symlinkSync(CLI, path.join(installed, 'cli.js'));
      const args = [
        path.join(installed, 'cli.js'),
        'guard',
        '--name',
        'entry',
        '--',
        process.execPath,
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
      ];
      const config: ServerConfig = {
        id: 'file#entry',
        name: 'entry',
        transport: 'stdio',
        command: process.execPath,
        args,
        source: { file: path.join(dir, '.mcp.json'), line: 1, column: 1, format: 'mcp-json', scope: 'workspace' },
      };
      registry.setServers([config], []);
      registry.start();

      const first = await waitFor('the guard report', () => {
        const status = registry.get(config.id);
        return status?.guarded?.running ? status : undefined;
      });
      assert.equal(first.state, 'up');
      assert.ok(first.guarded?.upstreamPid && isAlive(first.guarded.upstreamPid));
      assert.equal(first.guarded?.guardPid, guard.pid);
      assert.equal(first.guarded?.restarts, 0);
      upstreams.push(first.guarded.upstreamPid);

      // Kill the upstream, not the guard: the guard restarts it and the monitor shows that.
      process.kill(first.guarded.upstreamPid, 'SIGKILL');
      const restarted = await waitFor('the restart', () => {
        const status = registry.get(config.id);
        return status?.state === 'up' && status.guarded?.restarts === 1 ? status : undefined;
      });
      assert.notEqual(restarted.guarded?.upstreamPid, first.guarded.upstreamPid);
      upstreams.push(restarted.guarded!.upstreamPid!);

      // A real request after the restart is counted by the guard and shown here.
      guard.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
      await waitFor('tools/list answer', () => (out.includes('"id":2') ? true : undefined));
      const counted = await waitFor('the request count', () => {
        const status = registry.get(config.id);
        return status?.guarded && status.guarded.requests >= 2 ? status : undefined;
      });
      assert.equal(counted.guarded?.errors, 0);
      assert.equal(counted.pid, restarted.guarded?.upstreamPid);

      // list --json includes the entry with the same figures (it used to leave guarded entries out).
      const file = path.join(dir, 'mcp.json');
      writeFileSync(file, JSON.stringify({ mcpServers: { entry: { command: process.execPath, args } } }));
      const listed = await run(process.execPath, [CLI, 'list', '--json', '--config', file], { env });
      const document = JSON.parse(listed.stdout) as {
        servers: Array<{
          name: string;
          state: string;
          guarded?: { running: boolean; restarts: number; upstreamPid: number; requests: number };
        }>;
      };
      const entry = document.servers.find((s) => s.name === 'entry');
      assert.ok(entry?.guarded, 'list --json lists the guarded entry');
      assert.equal(entry.state, 'up');
      assert.equal(entry.guarded.running, true);
      assert.equal(entry.guarded.restarts, 1);
      assert.equal(entry.guarded.upstreamPid, restarted.guarded?.upstreamPid);

      assert.throws(() => statSync(marker), 'no copy of the guarded server was started');
    } finally {
      await registry.dispose();
      guard.stdin.end();
      await new Promise((resolve) => guard.once('exit', resolve));
      for (const pid of upstreams) await waitUntilDead(pid);
    }
  });

  void it('list --json shows "guard not running" (running: false) when no guard of that name answers', async () => {
    const runtime = path.join(dir, 'empty-runtime');
    const file = path.join(dir, 'alone.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { alone: { command: 'npx', args: ['-y', 'mcp-health', 'guard', '--name', 'alone', '--', 'node', 'x.js'] } },
      }),
    );
    const listed = await run(process.execPath, [CLI, 'list', '--json', '--config', file], {
      env: { ...process.env, XDG_RUNTIME_DIR: runtime },
    });
    const document = JSON.parse(listed.stdout) as { servers: Array<{ name: string; state: string; guarded?: { running: boolean } }> };
    const entry = document.servers.find((s) => s.name === 'alone');
    assert.equal(entry?.state, 'idle');
    assert.equal(entry?.guarded?.running, false);
  });
});
