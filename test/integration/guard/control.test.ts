// Ping and Reconnect on a guarded entry, the way the extension does them: the registry asks the running guard over its
// same-user channel. Ping makes the guard probe its real upstream now (the real RTT, or the real timeout); Reconnect
// makes it restart the upstream the way it recovers a crash, but only when that fails none of the client's requests.
// Real guard, real v1 SDK client, real fault servers.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { after, afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { systemClock } from '../../../src/core/clock';
import { GuardPoller, type GuardControl } from '../../../src/core/guardReport';
import type { ServerConfig } from '../../../src/core/model';
import { createRegistry } from '../../../src/core/monitor';
import { defaultMonitorSettings, type MonitorRegistry } from '../../../src/core/monitorTypes';
import { probeGuards, readGuardStatuses, restartGuards } from '../../../src/guard/statusChannel';
import { createNodeConnector } from '../../../src/mcp';
import { faultStdio, type StdioLaunch } from '../../helpers/servers';
import { waitFor } from '../../helpers/wait';
import { CLI, recording, StderrWatch, waitUntilDead } from './support';

const dir = mkdtempSync(path.join(tmpdir(), 'guard-control-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const silent = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let runs = 0;

/** A client running `server` through the guard, and MCP Health's registry showing the guarded entry. */
async function guardedSession(name: string, server: StdioLaunch, flags: string[] = []) {
  const socketDir = path.join(dir, `runtime-${++runs}`, 'mcp-health');
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'guard', '--name', name, ...flags, '--', server.command, ...server.args],
    stderr: 'pipe',
    env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1', XDG_RUNTIME_DIR: path.dirname(socketDir) },
  });
  const stderr = new StderrWatch(inner.stderr as Readable);
  const { transport, received, closed } = recording(inner);
  const client = new Client({ name: 'guard-control-test', version: '1.0.0' });
  await client.connect(transport);
  const guardPid = inner.pid!;
  // The extension's control, aimed at this test's runtime directory.
  const control: GuardControl = {
    probe: (guardName) => probeGuards(guardName, 10_000, socketDir),
    restart: (guardName) => restartGuards(guardName, 2000, socketDir),
  };
  const registry: MonitorRegistry = createRegistry({
    connector: createNodeConnector({ logger: silent, clientInfo: { name: 'test', version: '1' } }),
    clock: systemClock,
    logger: silent,
    settings: defaultMonitorSettings,
    guards: new GuardPoller(systemClock, () => readGuardStatuses(2000, socketDir), 100, control),
  });
  const config: ServerConfig = {
    id: `file#${name}`,
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [CLI, 'guard', '--name', name, '--', server.command, ...server.args],
    source: { file: path.join(dir, '.mcp.json'), line: 1, column: 1, format: 'mcp-json', scope: 'workspace' },
  };
  registry.setServers([config], []);
  registry.start();
  cleanups.push(async () => {
    const pids = stderr.upstreamPids();
    await registry.dispose();
    await client.close();
    await waitUntilDead(guardPid);
    for (const pid of pids) await waitUntilDead(pid);
  });
  await waitFor('the guard report', () => (registry.get(config.id)?.guarded?.running ? true : undefined));
  return { client, registry, id: config.id, stderr, received, closed };
}

async function echo(client: Client, message: string): Promise<string> {
  const result = (await client.callTool({ name: 'echo', arguments: { message } })) as { content: Array<{ text?: string }> };
  return result.content[0]?.text ?? '';
}

function guardMessages(received: unknown[]): unknown[] {
  return received.filter(
    (message) => JSON.stringify(message).includes('mcp-health-guard') || (message as { method?: string }).method === 'ping',
  );
}

void describe('Ping on a guarded entry', () => {
  void it('makes the guard ping its real upstream now and reports the real round trip; the client sees nothing of it', async () => {
    const session = await guardedSession('pinged', faultStdio('none'));
    const results = await session.registry.pingNow(session.id);
    const result = results.get(session.id);
    assert.ok(result, 'a result for the guarded entry');
    assert.equal(result.method, 'ping');
    assert.equal(result.outcome, 'ok');
    assert.equal(typeof result.rttMs, 'number');
    assert.equal(await echo(session.client, 'still here'), 'Echo: still here');
    assert.deepEqual(guardMessages(session.received), []);
  });

  void it('reports a hung ping loop as a timeout, and leaves restarting to the keepalive', async () => {
    const session = await guardedSession('hung', faultStdio('hang-ping'), ['--timeout-ms', '300']);
    const result = (await session.registry.pingNow(session.id)).get(session.id);
    assert.equal(result?.outcome, 'timeout');
    assert.match(result?.detail ?? '', /no answer within 300 ms/);
    assert.equal(session.stderr.upstreamPids().length, 1, 'no restart for a manual probe');
    assert.equal(await echo(session.client, 'answers'), 'Echo: answers');
  });
});

void describe('Reconnect on a guarded entry', () => {
  void it('restarts the upstream inside the client connection, but refuses while a client request is in flight', async () => {
    const session = await guardedSession('restarted', faultStdio('stream-tools'));
    const [first] = session.stderr.upstreamPids();
    // A request of the client in flight: a restart now would fail it, so the guard says no.
    let progressed = false;
    const slow = session.client.callTool({ name: 'count', arguments: { steps: 5, intervalMs: 200 } }, undefined, {
      onprogress: () => (progressed = true),
    });
    // Its first progress has come back through the guard: the guard holds it as in flight.
    await waitFor('the call to be under way', () => (progressed ? true : undefined));
    const refused = await session.registry.restartGuarded(session.id);
    assert.equal(refused?.length, 1);
    assert.equal(refused[0]!.restarting, false);
    assert.match(refused[0]!.detail, /in flight; a restart now would fail them/);
    assert.deepEqual((await slow).content, [{ type: 'text', text: 'Counted 5' }]);

    const accepted = await session.registry.restartGuarded(session.id);
    assert.equal(accepted?.[0]?.restarting, true);
    const second = await session.stderr.waitForGeneration(2);
    assert.notEqual(second, first);
    await session.stderr.waitFor(/restart requested from MCP Health; restarting/);
    // The client kept its connection, was told to refetch its tools, and its calls work on the new upstream.
    await waitFor('list_changed', () =>
      session.received.some((message) => (message as { method?: string }).method === 'notifications/tools/list_changed') ? true : undefined,
    );
    assert.equal(await echo(session.client, 'after reconnect'), 'Echo: after reconnect');
    assert.equal(session.closed(), false);
    const status = await waitFor('the restart in the figures', () =>
      session.registry.get(session.id)?.guarded?.restarts === 1 ? session.registry.get(session.id) : undefined,
    );
    assert.equal(status?.guarded?.upstreamPid, second);
  });

  void it('through reconnect(): the registry routes a guarded entry to its guard instead of doing nothing', async () => {
    const session = await guardedSession('viaReconnect', faultStdio('none'));
    await session.registry.reconnect(session.id);
    await session.stderr.waitForGeneration(2);
    assert.equal(await echo(session.client, 'again'), 'Echo: again');
  });
});
