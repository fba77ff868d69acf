// A window taking over from a crashed leader ends only the server processes this installation recorded starting: a
// fake leader (a bare channel socket) that reports the pid of an unrelated process (a `sleep 60` this test started, in
// its own process group) and then vanishes without "bye" cannot make the new leader kill it. The real case, a killed
// leading window's servers, is still reaped: sharedServers.test.ts "the leading window is killed (SIGKILL)".

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../../src/core/clock';
import { createRegistry } from '../../../src/core/monitor';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';
import { createNodeConnector } from '../../../src/mcp';
import { channelPath, listenChannel } from '../../../src/mcp/localChannel';
import { SharedServers, type Role } from '../../../src/mcp/sharedServers';
import { isAlive } from '../../helpers/processes';
import { userSource } from '../../helpers/serverConfig';
import { waitUntil } from '../../helpers/wait';

const linux = process.platform === 'linux';
const root = mkdtempSync(path.join(tmpdir(), 'mh-fake-leader-'));
after(() => rmSync(root, { recursive: true, force: true }));

void describe('taking over from a fake leader', { skip: !linux && 'needs /proc (Linux)' }, () => {
  void it('never kills a process the leader only reported', async () => {
    const bystander = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    const pid = bystander.pid!;
    const socket = channelPath('user-servers', path.join(root, 'run'));
    const file = path.join(root, 'User', 'mcp.json');
    const config = {
      id: `${file}#alpha`,
      name: 'alpha',
      source: userSource(file),
      transport: 'stdio' as const,
      command: process.execPath,
      args: ['-e', ''],
    };
    const status = {
      state: 'up',
      era: 'handshake',
      protocolVersion: '2025-06-18',
      serverInfo: null,
      lastRttMs: 1,
      lastError: null,
      lastProbeAt: null,
      lastStateChangeAt: null,
      consecutiveFailures: 0,
      restarts: 0,
      flapping: false,
      nonConformant: false,
      stats: { recent: [], count: 0 },
      stderrTail: '',
      pid,
    };
    const fake = await listenChannel(socket, { onConnect: (peer) => peer.send({ t: 'snapshot', servers: { [config.id]: status } }) });
    assert.ok(fake);
    const lines: string[] = [];
    const log = (message: string) => void lines.push(message);
    const logger = { trace: () => undefined, debug: log, info: log, warn: log, error: log };
    const registry = createRegistry({
      connector: createNodeConnector({ logger }),
      clock: systemClock,
      logger,
      settings: defaultMonitorSettings,
    });
    registry.setServers([config], []);
    const roles: Role[] = [];
    const shared = new SharedServers({
      path: socket,
      registry,
      covers: () => true,
      label: 'another window',
      logger,
      onRoleChange: (role) => roles.push(role),
      reapGraceMs: 500,
    });
    try {
      await shared.start();
      assert.deepEqual(roles, ['follower']);
      assert.ok(await waitUntil(() => registry.get(config.id)?.pid === pid, 10_000), 'the follower mirrors the reported pid');
      // The fake leader goes away without "bye": a crash, as far as the follower can tell.
      await fake.dispose();
      assert.ok(await waitUntil(() => roles.includes('leader'), 20_000), `the follower takes over\n${lines.join('\n')}`);
      assert.ok(isAlive(pid), `the reported but unrelated process survives the take-over\n${lines.join('\n')}`);
      assert.ok(
        lines.some((line) => line.includes(`not ending pid ${pid}`)),
        lines.join('\n'),
      );
    } finally {
      await registry.dispose();
      await shared.dispose();
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  void it("drops a leader's message that matches no schema (a state of `constructor`) with one log line", async () => {
    const socket = channelPath('user-servers', path.join(root, 'run-schema'));
    const file = path.join(root, 'User', 'mcp.json');
    const config = {
      id: `${file}#beta`,
      name: 'beta',
      source: userSource(file),
      transport: 'stdio' as const,
      command: process.execPath,
      args: ['-e', ''],
    };
    // What the old check let through: a string state, a pid, restarts and stats.recent.
    const hostile = { state: 'constructor', pid: null, restarts: 0, stats: { recent: [] } };
    const fake = await listenChannel(socket, { onConnect: (peer) => peer.send({ t: 'snapshot', servers: { [config.id]: hostile } }) });
    assert.ok(fake);
    const warnings: string[] = [];
    const logger = {
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: (m: string) => void warnings.push(m),
      error: () => undefined,
    };
    const registry = createRegistry({
      connector: createNodeConnector({ logger }),
      clock: systemClock,
      logger,
      settings: defaultMonitorSettings,
    });
    registry.setServers([config], []);
    const shared = new SharedServers({ path: socket, registry, covers: () => true, label: 'another window', logger });
    try {
      await shared.start();
      assert.ok(await waitUntil(() => warnings.length > 0, 10_000), 'the dropped message is logged');
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0]!, /dropped a message from the leading window that matches no schema \(servers: .*state: expected one of/);
      const shown = registry.get(config.id);
      assert.equal(shown?.state, 'idle');
      assert.match(shown?.watchedElsewhere ?? '', /no status reported yet/);
    } finally {
      await registry.dispose();
      await shared.dispose();
      await fake.dispose();
    }
  });
});
