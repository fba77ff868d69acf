import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concurrentStartsFor } from '../../../../src/core/monitor/connectSlots';
import { startupTimeoutFor } from '../../../../src/core/monitor/intervals';
import type { MonitorSettings } from '../../../../src/core/monitorTypes';
import { describeState } from '../../../../src/present/states';
import { harness, server, stateOf, testSettings } from './harness';

// A start is not a connect: a stdio server's first start has a budget of its own (issue 21, section 1).
const CONNECT_MS = testSettings.connectTimeoutMs;
const BUDGET_MS = 30_000;
const settings: MonitorSettings = { ...testSettings, startupTimeoutMs: BUDGET_MS };

void describe('start-up budget', () => {
  void it('gives the first start the start-up budget and every later reconnect the connect timeout', async () => {
    const h = harness({ settings });
    const a = server('a');
    h.connector.queue(a.id, { dieAfterMs: 1_000 });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(10_000);
    const budgets = h.connector.attempts.filter((attempt) => attempt.serverId === a.id).map((attempt) => attempt.options.timeoutMs);
    assert.deepEqual(budgets.slice(0, 2), [BUDGET_MS, CONNECT_MS]);
    await h.registry.dispose();
  });

  void it('shows a server slower than the connect timeout but within the budget as starting, then up: never down', async () => {
    const h = harness({ settings });
    const a = server('slow');
    h.connector.queue(a.id, { afterMs: 3 * CONNECT_MS });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(2 * CONNECT_MS);
    assert.equal(stateOf(h, a.id), 'starting');
    await h.clock.advance(2 * CONNECT_MS);
    assert.deepEqual(h.stateChanges(a.id), ['idle->starting', 'starting->up']);
    await h.registry.dispose();
  });

  void it('shows a server that never answers as down after the budget, with that reason', async () => {
    const h = harness({ settings });
    const a = server('silent');
    h.connector.always(a.id, { hang: true });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(BUDGET_MS - 1);
    assert.equal(stateOf(h, a.id), 'starting');
    await h.clock.advance(2_000);
    const status = h.registry.get(a.id);
    assert.equal(status?.state, 'down');
    assert.equal(status?.lastError?.kind, 'timeout');
    assert.equal(status?.lastError?.message, 'did not start within 30 s');
    assert.deepEqual(h.stateChanges(a.id), ['idle->starting', 'starting->down']);
    await h.registry.dispose();
  });

  void it('shows the elapsed time and the latest stderr line while it starts', async () => {
    const h = harness({ settings });
    const a = server('npx');
    h.connector.queue(a.id, {
      afterMs: 20_000,
      startStderr: [
        { afterMs: 1_000, text: 'npm warn exec The following package was not found and will be installed\n' },
        { afterMs: 4_000, text: '\x1b[2Kfetching 3/12\rfetching 7/12\r' },
      ],
    });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(6_000);
    const status = h.registry.get(a.id);
    assert.ok(status);
    assert.equal(status.state, 'starting');
    assert.equal(status.startup?.budgetMs, BUDGET_MS);
    assert.equal(describeState(status, h.clock.wall()), 'starting · 6 s · fetching 7/12');
    assert.ok(
      h.events.some((event) => event.type === 'stderr' && event.id === a.id),
      'stderr reaches the log while it starts',
    );
    await h.clock.advance(15_000);
    assert.equal(stateOf(h, a.id), 'up');
    assert.equal(h.registry.get(a.id)?.startup, null);
    await h.registry.dispose();
  });

  void it('runs a bounded number of starts at once; the queued ones are starting, and each budget runs from its slot', async () => {
    const h = harness({ settings, maxConcurrentStarts: 2 });
    const servers = ['a', 'b', 'c', 'd', 'e'].map((name) => server(name));
    // Each start alone takes longer than the connect timeout and well within the budget; all five together would
    // take more than the budget if each one's budget ran from the burst.
    for (const config of servers) h.connector.queue(config.id, { afterMs: 20_000 });
    h.registry.setServers(servers, []);
    h.registry.start();
    await h.clock.advance(0);
    assert.equal(h.connector.attempts.length, 2, 'two starts at once');
    const queued = h.registry.get(servers[4]!.id);
    assert.equal(queued?.state, 'starting');
    assert.equal(queued?.startup?.since, null);
    assert.match(describeState(queued!, h.clock.wall()), /^starting · queued/);
    await h.clock.advance(60_000);
    for (const config of servers) {
      assert.deepEqual(h.stateChanges(config.id), ['idle->starting', 'starting->up'], config.name);
    }
    await h.registry.dispose();
  });

  void it('gives an HTTP server no start-up budget: connecting within the connect timeout', async () => {
    const h = harness({ settings });
    const remote = server('remote', { transport: 'http', url: 'http://127.0.0.1:9/mcp' });
    h.registry.setServers([remote], []);
    h.registry.start();
    await h.clock.advance(10);
    assert.equal(h.connector.attempts[0]?.options.timeoutMs, CONNECT_MS);
    assert.deepEqual(h.stateChanges(remote.id), ['idle->connecting', 'connecting->up']);
    await h.registry.dispose();
  });

  void it('takes a per-server budget by name or id, never below the connect timeout', () => {
    const a = server('a');
    const perServer: MonitorSettings = { ...settings, serverStartupTimeoutMs: { a: 90_000, [server('b').id]: 45_000, c: 1 } };
    assert.equal(startupTimeoutFor(a, perServer), 90_000);
    assert.equal(startupTimeoutFor(server('b'), perServer), 45_000);
    assert.equal(startupTimeoutFor(server('c'), perServer), CONNECT_MS);
    assert.equal(startupTimeoutFor(server('d'), perServer), BUDGET_MS);
  });

  void it('chooses the number of concurrent starts from the machine: one per core, at least two', () => {
    assert.equal(concurrentStartsFor(1), 2);
    assert.equal(concurrentStartsFor(2), 2);
    assert.equal(concurrentStartsFor(8), 8);
    assert.equal(concurrentStartsFor(Number.NaN), 2);
  });
});
