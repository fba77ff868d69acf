// Guard reports are another process's JSON: an older, newer or broken guard (here a fake one on a real channel socket)
// sends `{"type":"guard-status","name":"fs"}` or a state of `constructor`. `list` and `check`, run as a user runs them,
// and the registry behind the extension's views drop such a report with one log line and show the entry as having no
// running guard; a well-formed report beside it still shows.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../../src/core/clock';
import { GuardPoller } from '../../../src/core/guardReport';
import type { ServerConfig } from '../../../src/core/model';
import { createRegistry } from '../../../src/core/monitor';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';
import { readGuardStatuses } from '../../../src/guard/statusChannel';
import { createNodeConnector } from '../../../src/mcp';
import { channelPath, listenChannel, type ChannelMessage, type ChannelServer } from '../../../src/mcp/localChannel';
import { runCli } from '../../helpers/cli';
import { waitUntil } from '../../helpers/wait';

const dir = mkdtempSync(path.join(tmpdir(), 'guard-malformed-'));
const runtime = path.join(dir, 'runtime');
const socketDir = path.join(runtime, 'mcp-health');
const open: ChannelServer[] = [];
after(async () => {
  for (const server of open.splice(0)) await server.dispose();
  rmSync(dir, { recursive: true, force: true });
});
const silent = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function wellFormed(name: string, guardPid: number): ChannelMessage {
  return {
    type: 'guard-status',
    name,
    guardPid,
    target: 'node x.js',
    state: 'ready',
    era: 'handshake',
    protocolVersion: '2025-06-18',
    upstreamPid: null,
    generation: 1,
    restarts: 0,
    keepalive: { probes: 2, answered: 2, lastRttMs: 1.5 },
    methods: { 'tools/list': { count: 1, errors: 0 } },
    lastError: null,
  };
}

/** A fake guard: a real channel socket named like a guard's, sending `report` to every peer that connects. */
async function fakeGuard(pid: number, report: ChannelMessage): Promise<void> {
  const server = await listenChannel(channelPath(`guard-${pid}`, socketDir), { onConnect: (peer) => peer.send(report) });
  assert.ok(server);
  open.push(server);
}

const guardedArgs = (name: string) => ['-y', 'mcp-health', 'guard', '--name', name, '--', 'node', 'x.js'];

void describe('malformed guard reports', () => {
  void it('list, check and the registry drop them with one log line; a good report beside them still shows', async () => {
    await fakeGuard(900001, { type: 'guard-status', name: 'fs' });
    await fakeGuard(900002, { ...wellFormed('proto', 900002), state: 'constructor' });
    await fakeGuard(900003, wellFormed('good', 900003));
    const file = path.join(dir, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          fs: { command: 'npx', args: guardedArgs('fs') },
          proto: { command: 'npx', args: guardedArgs('proto') },
          good: { command: 'npx', args: guardedArgs('good') },
        },
      }),
    );
    const env = { XDG_RUNTIME_DIR: runtime };

    for (const command of ['list', 'check']) {
      const run = await runCli([command, '--config', file], { env });
      assert.doesNotMatch(run.stderr, /TypeError|at .*\.js:\d+/, `${command} does not crash: ${run.stderr}`);
      assert.equal(run.code, 0, `${command} exits 0\n${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /fs\s+guarded, no running guard/, `${command}: fs has no usable report`);
      assert.match(run.stdout, /proto\s+guarded, no running guard/, `${command}: proto has no usable report`);
      assert.doesNotMatch(run.stdout, /function Object/);
      assert.match(run.stdout, /good\s+guarded ready \(guard pid 900003/, `${command}: the good report shows`);
      const dropped = run.stderr.split('\n').filter((line) => line.includes('does not match its schema'));
      assert.equal(dropped.length, 2, `one line per dropped report:\n${run.stderr}`);
      assert.ok(
        dropped.some((line) => line.includes('guard-900001.sock') && /guardPid: expected an integer/.test(line)),
        dropped.join('\n'),
      );
      assert.ok(
        dropped.some((line) => line.includes('guard-900002.sock') && /state: expected one of/.test(line)),
        dropped.join('\n'),
      );
    }

    const json = await runCli(['list', '--json', '--config', file], { env });
    const document = JSON.parse(json.stdout) as { servers: Array<{ name: string; state: string; guarded?: { running: boolean } }> };
    assert.deepEqual(document.servers.map((s) => [s.name, s.state, s.guarded?.running]).sort(), [
      ['fs', 'idle', false],
      ['good', 'up', true],
      ['proto', 'idle', false],
    ]);

    // The registry behind the extension's views, polling the same sockets.
    const logged: string[] = [];
    const registry = createRegistry({
      connector: createNodeConnector({ logger: silent, clientInfo: { name: 'test', version: '1' } }),
      clock: systemClock,
      logger: silent,
      settings: defaultMonitorSettings,
      guards: new GuardPoller(systemClock, () => readGuardStatuses(2000, socketDir, (line) => logged.push(line)), 100),
    });
    try {
      const configs: ServerConfig[] = ['fs', 'proto', 'good'].map((name) => ({
        id: `file#${name}`,
        name,
        transport: 'stdio',
        command: 'npx',
        args: guardedArgs(name),
        source: { file, line: 1, column: 1, format: 'mcp-json', scope: 'user' },
      }));
      registry.setServers(configs, []);
      registry.start();
      assert.ok(await waitUntil(() => registry.get('file#good')?.state === 'up', 20_000), 'the good guard shows up');
      assert.equal(registry.get('file#fs')?.state, 'idle');
      assert.equal(registry.get('file#fs')?.guarded?.running, false);
      assert.equal(registry.get('file#proto')?.state, 'idle');
      assert.ok(
        logged.some((line) => line.includes('guard-900001.sock')) && logged.some((line) => line.includes('guard-900002.sock')),
        logged.join('\n'),
      );
    } finally {
      await registry.dispose();
    }
  });
});
