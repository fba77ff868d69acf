// Entries whose command is `mcp-health guard ...`: listed, never connected (that would start a second copy of the
// server beside the one the user's client runs), and shown with the running guard's report.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GuardPoller, type GuardReport } from '../../../../src/core/guardReport';
import { describeState } from '../../../../src/present/states';
import { harness, server } from './harness';

function report(overrides: Partial<GuardReport> = {}): GuardReport {
  return {
    name: 'files',
    guardPid: 4242,
    target: 'node server.js',
    state: 'ready',
    era: 'handshake',
    protocolVersion: '2025-06-18',
    upstreamPid: 5151,
    restarts: 1,
    keepalive: { probes: 3, answered: 3, lastRttMs: 1.25 },
    methods: { 'tools/call': { count: 4, errors: 1 }, 'tools/list': { count: 2, errors: 0 } },
    lastError: { message: 'upstream exited with code 1; restarting', exitCode: 1, signal: null, stderrTail: 'boom' },
    ...overrides,
  };
}

const guarded = server('files', { command: 'npx', args: ['-y', 'mcp-health', 'guard', '--name', 'files', '--', 'node', 'server.js'] });
const plain = server('plain');

void describe('guarded entries', () => {
  void it('are never connected, and show the guard report: state, upstream pid, restarts, probe RTT, request counts', async () => {
    let reports: GuardReport[] = [];
    let reads = 0;
    const h = harness({
      guards: (clock) =>
        new GuardPoller(
          clock,
          () => {
            reads += 1;
            return Promise.resolve(reports);
          },
          2_000,
        ),
    });
    h.registry.setServers([guarded, plain], []);
    h.registry.start();
    await h.clock.advance(60_000);
    assert.equal(h.connector.connectionsFor(guarded.id).length, 0, 'no copy of a guarded server is started');
    assert.equal(h.connector.connectionsFor(plain.id).length, 1, 'other servers are monitored as before');

    const before = h.registry.get(guarded.id);
    assert.equal(before?.state, 'idle');
    assert.equal(before?.guarded?.running, false);
    assert.equal(describeState(before!), 'guarded · guard not running');

    const eventsBefore = h.events.filter((event) => event.type === 'servers').length;
    reports = [report(), report({ name: 'other', guardPid: 1 })];
    await h.clock.advance(2_000);
    assert.ok(h.events.filter((event) => event.type === 'servers').length > eventsBefore, 'a new report refreshes the views');
    const shown = h.registry.get(guarded.id);
    assert.equal(shown?.state, 'up');
    assert.deepEqual(shown?.guarded, {
      guardName: 'files',
      running: true,
      guards: 1,
      guardPid: 4242,
      upstreamPid: 5151,
      restarts: 1,
      probeRttMs: 1.25,
      requests: 6,
      errors: 1,
    });
    assert.equal(shown?.pid, 5151);
    assert.equal(describeState(shown!), 'guarded · up · 1.3 ms · 1 restart · 6 requests · 1 error');

    reports = [report({ state: 'restarting', upstreamPid: null })];
    await h.clock.advance(2_000);
    assert.equal(h.registry.get(guarded.id)?.state, 'down', 'a guard restarting its upstream shows the connection down');
    assert.equal(h.connector.connectionsFor(guarded.id).length, 0);

    // Polling stops with the registry: no timer left behind.
    await h.registry.dispose();
    const readsAtDispose = reads;
    await h.clock.advance(60_000);
    assert.equal(reads, readsAtDispose);
  });

  void it('need no consent (nothing is started) and are not polled while no guarded entry is listed', async () => {
    let reads = 0;
    const h = harness({
      consent: () => false,
      guards: (clock) =>
        new GuardPoller(
          clock,
          () => {
            reads += 1;
            return Promise.resolve([report()]);
          },
          2_000,
        ),
    });
    h.registry.setServers([plain], []);
    h.registry.start();
    await h.clock.advance(10_000);
    assert.equal(reads, 0, 'no guard socket is read for a config without guarded entries');
    assert.equal(h.registry.get(plain.id)?.state, 'needs-consent');

    h.registry.setServers([plain, guarded], []);
    await h.clock.advance(0);
    assert.equal(h.registry.get(guarded.id)?.state, 'up');
    assert.equal(h.connector.connectionsFor(guarded.id).length, 0);

    h.registry.setServers([plain], []);
    const readsWithout = reads;
    await h.clock.advance(10_000);
    assert.equal(reads, readsWithout, 'polling stops when the guarded entry goes');
    await h.registry.dispose();
  });
});
