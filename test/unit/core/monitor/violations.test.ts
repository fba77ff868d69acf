import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeOutcome } from '../../../../src/core/model';
import type { ProbeScript } from '../../../helpers/fakeConnector';
import { harness, INTERVAL_MS, server, stateOf, testSettings, TIMEOUT_MS } from './harness';

const answerPingWith =
  (outcome: Extract<ProbeOutcome, 'error-reply' | 'non-empty'>): ProbeScript =>
  (method) =>
    method === 'ping'
      ? { outcome, afterMs: 3, detail: outcome === 'error-reply' ? '-32603 internal' : '{"x":1}' }
      : { outcome: 'ok', afterMs: 4 };

for (const violation of ['error-reply', 'non-empty'] as const) {
  void describe(`a ping answered with ${violation}`, () => {
    void it('is suspect, reconnects once, then is marked non-conformant and watched with tools/list instead of restarted', async () => {
      const h = harness({ random: () => 0.5 });
      const a = server('a');
      h.connector.always(a.id, { probe: answerPingWith(violation) });
      h.registry.setServers([a], []);
      h.registry.start();
      await h.clock.advance(INTERVAL_MS + 3);
      let status = h.registry.get(a.id);
      assert.equal(status?.state, 'suspect');
      assert.equal(status?.lastError?.kind, 'protocol-violation');
      assert.equal(status?.nonConformant, false);
      assert.equal(h.connector.connectionsFor(a.id)[0]?.closeCalls, 1, 'the violating connection is dropped');
      assert.ok(h.logs.some((line) => line.level === 'warn' && line.message.includes('protocol violation')));

      await h.clock.advance(testSettings.backoff.initialMs + 3);
      assert.equal(h.connector.attempts.length, 2, 'one reconnect');
      status = h.registry.get(a.id);
      assert.equal(status?.state, 'suspect');
      assert.equal(status?.nonConformant, true, 'the same violation on the fresh connection');
      assert.match(status?.lastError?.message ?? '', violation === 'error-reply' ? /JSON-RPC error/ : /non-empty/);

      await h.clock.advance(20 * INTERVAL_MS);
      assert.equal(h.connector.attempts.length, 2, 'no more reconnects: no restart storm');
      const fresh = h.connector.latest(a.id);
      assert.equal(fresh.closeCalls, 0);
      const methods = fresh.probes.map((probe) => probe.method);
      assert.equal(methods[0], 'ping');
      assert.ok(methods.length >= 15);
      assert.ok(
        methods.slice(1).every((method) => method === 'tools/list'),
        'fallback probing on the normal schedule',
      );
      const gaps = fresh.probes.slice(2).map((probe, index) => probe.at - (fresh.probes[index + 1]?.at ?? 0));
      assert.ok(
        gaps.every((gap) => gap === INTERVAL_MS + 4),
        `gaps ${gaps.join(',')}`,
      );
      status = h.registry.get(a.id);
      assert.equal(status?.state, 'suspect', 'alive but non-conformant is not plainly up');
      assert.equal(status?.consecutiveFailures, 0);
      assert.equal(status?.lastRttMs, 4);
      assert.deepEqual(h.stateChanges(a.id), [
        'idle->starting',
        'starting->up',
        'up->suspect',
        'suspect->connecting',
        'connecting->suspect',
      ]);
      const reasons = h.events.flatMap((event) => (event.type === 'state' ? [event.reason] : []));
      assert.ok(reasons.some((reason) => reason.includes('re-checking')));
      await h.registry.dispose();
    });
  });
}

void describe('protocol violations, other paths', () => {
  void it('returns to up when the fresh connection answers properly', async () => {
    const h = harness();
    const a = server('a');
    h.connector.queue(a.id, { probe: answerPingWith('error-reply') });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 3 + testSettings.backoff.initialMs + 5);
    assert.equal(stateOf(h, a.id), 'up');
    assert.equal(h.registry.get(a.id)?.nonConformant, false);
    await h.clock.advance(INTERVAL_MS + 5);
    assert.equal(h.connector.latest(a.id).probes.at(-1)?.method, 'ping');
    await h.registry.dispose();
  });

  void it('takes a failed fallback probe as down, reconnects, and keeps the non-conformant verdict', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    let fallbackWorks = true;
    h.connector.always(a.id, {
      probe: (method) =>
        method === 'ping' ? { outcome: 'error-reply', afterMs: 3 } : fallbackWorks ? { outcome: 'ok', afterMs: 4 } : { outcome: 'timeout' },
    });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 3 + testSettings.backoff.initialMs + 3);
    assert.equal(h.registry.get(a.id)?.nonConformant, true);
    fallbackWorks = false;
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS);
    assert.equal(stateOf(h, a.id), 'down');
    assert.equal(h.registry.get(a.id)?.lastError?.kind, 'timeout');
    fallbackWorks = true;
    await h.clock.advance(testSettings.backoff.initialMs + 10);
    assert.equal(h.connector.attempts.length, 3);
    assert.equal(stateOf(h, a.id), 'suspect');
    assert.equal(h.registry.get(a.id)?.nonConformant, true);
    assert.deepEqual(
      h.connector.latest(a.id).probes.map((probe) => probe.method),
      ['tools/list'],
    );
    await h.registry.dispose();
  });

  void it('detects a server that ignores ping but answers other requests, and stops restarting it', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    h.connector.always(a.id, { probe: (method) => (method === 'ping' ? { outcome: 'timeout' } : { outcome: 'ok', afterMs: 6 }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS);
    assert.equal(stateOf(h, a.id), 'down', 'a single timeout is a dead connection');
    await h.clock.advance(testSettings.backoff.initialMs + TIMEOUT_MS + 6);
    const status = h.registry.get(a.id);
    assert.equal(status?.state, 'suspect');
    assert.equal(status?.nonConformant, true);
    assert.match(status?.lastError?.message ?? '', /ping is never answered, but tools\/list is/);
    const reasons = h.events.flatMap((event) => (event.type === 'state' ? [event.reason] : []));
    assert.ok(reasons.includes('non-conformant: ignores ping'));

    await h.clock.advance(30 * INTERVAL_MS);
    assert.equal(h.connector.attempts.length, 2, 'no restart storm');
    const second = h.connector.latest(a.id);
    assert.deepEqual(
      second.probes.slice(0, 3).map((probe) => probe.method),
      ['ping', 'tools/list', 'tools/list'],
    );
    assert.equal(h.registry.get(a.id)?.state, 'suspect');
    await h.registry.dispose();
  });

  void it('keeps restarting (with backoff) a server that answers nothing, without calling it non-conformant', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    h.connector.always(a.id, { probe: () => ({ outcome: 'timeout' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(5 * 60_000);
    const status = h.registry.get(a.id);
    assert.equal(status?.nonConformant, false);
    const attempts = h.connector.attempts.length;
    // Each cycle lasts at least one probe timeout plus the backoff: far from a tight loop.
    assert.ok(attempts > 5 && attempts <= (5 * 60_000) / TIMEOUT_MS, `${attempts} attempts in 5 minutes`);
    assert.ok(h.connector.connections.every((connection) => connection.maxConcurrentProbes <= 1));
    await h.registry.dispose();
  });

  void it('a manual reconnect forgets the non-conformant verdict and probes with ping again', async () => {
    const h = harness();
    const a = server('a');
    h.connector.queue(a.id, { probe: answerPingWith('non-empty') }, { probe: answerPingWith('non-empty') });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 3 + testSettings.backoff.initialMs + 3);
    assert.equal(h.registry.get(a.id)?.nonConformant, true);
    await h.registry.reconnect(a.id);
    assert.equal(h.registry.get(a.id)?.nonConformant, false);
    assert.equal(stateOf(h, a.id), 'verifying', 'after the violations, a fresh connection must answer a probe first');
    const results = await Promise.all([h.registry.pingNow(a.id), h.clock.advance(10)]);
    assert.equal(results[0].get(a.id)?.method, 'ping');
    assert.equal(results[0].get(a.id)?.outcome, 'ok');
    await h.registry.dispose();
  });
});
