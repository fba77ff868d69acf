// Honest uptime: a connection opened after a failure is `verifying` until a probe answers, only proven time counts as
// up, and a server retrying its connection stays `down` (with the time of its next attempt) instead of flickering.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectError } from '../../../../src/core/connection';
import { describeState } from '../../../../src/present/states';
import { harness, INTERVAL_MS, server, stateOf, testSettings, TIMEOUT_MS } from './harness';

const exited = { kind: 'exited' as const, message: 'exited with code 1', exitCode: 1 };

void describe('verifying after a failure', () => {
  void it('a reconnected server is verifying until its first probe (sent at once) answers, then up', async () => {
    const h = harness({ random: () => 0 });
    const a = server('a');
    h.connector.queue(a.id, {}, { afterMs: 20 }, {});
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1);
    assert.equal(stateOf(h, a.id), 'up', 'a first connect is trusted on its handshake');
    h.connector.latest(a.id).die(exited);
    await h.clock.advance(20);
    assert.equal(stateOf(h, a.id), 'verifying');
    const fresh = h.connector.latest(a.id);
    assert.equal(fresh.probes.length, 1, 'the fresh connection is probed at once, not after an interval');
    await h.clock.advance(10);
    assert.equal(stateOf(h, a.id), 'up');
    assert.deepEqual(h.stateChanges(a.id), ['idle->starting', 'starting->up', 'up->down', 'down->verifying', 'verifying->up']);
    await h.registry.dispose();
  });

  void it('a server that never answered a probe never shows a positive uptime', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    // Every connection answers the handshake, then never answers a probe.
    h.connector.always(a.id, { probe: () => ({ outcome: 'timeout' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    for (let step = 0; step < 20; step += 1) {
      await h.clock.advance(1_000);
      const uptime = h.registry.get(a.id)?.stats.uptimePercent;
      assert.ok(uptime === null || uptime === 0, `uptime ${uptime} at step ${step} (state ${stateOf(h, a.id)})`);
    }
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS);
    assert.equal(h.registry.get(a.id)?.stats.uptimePercent, 0);
    assert.ok((h.registry.get(a.id)?.stats.totals.sent ?? 0) > 0, 'it was probed');
    await h.registry.dispose();
  });

  void it('counts a connection as up from its connect once its probe answers', async () => {
    const h = harness();
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS / 2);
    assert.equal(h.registry.get(a.id)?.stats.uptimePercent, 0, 'not proven yet');
    await h.clock.advance(INTERVAL_MS);
    assert.equal(h.registry.get(a.id)?.stats.uptimePercent, 100, 'proven by the first keepalive, from the connect on');
    await h.registry.dispose();
  });

  void it('shows the handshake time until the first probe answers, then the probe RTT', async () => {
    const h = harness();
    const a = server('a');
    h.connector.queue(a.id, { afterMs: 40 });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(40);
    const before = h.registry.get(a.id);
    assert.equal(before?.handshakeMs, 40);
    assert.equal(before && describeState(before), 'up · handshake 40 ms');
    await h.clock.advance(INTERVAL_MS + 5);
    const after = h.registry.get(a.id);
    assert.equal(after?.handshakeMs, null);
    assert.equal(after && describeState(after), 'up · 5 ms');
    await h.registry.dispose();
  });
});

void describe('retrying a connection', () => {
  void it('stays down between attempts, with the time of the next one, instead of flickering through connecting', async () => {
    const h = harness({ random: () => 0.999 });
    const a = server('a');
    const refuse = { fail: new ConnectError('unreachable', 'connection refused') };
    h.connector.queue(a.id, refuse, refuse, refuse, refuse);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(0);
    assert.equal(stateOf(h, a.id), 'down');
    const first = h.registry.get(a.id);
    const waitMs = Math.floor(0.999 * testSettings.backoff.initialMs);
    assert.equal(first?.nextRetryAt, h.clock.wall() + waitMs);
    assert.equal(first && describeState(first, h.clock.wall()), 'down · unreachable · retrying in 1 s');
    await h.clock.advance(waitMs + 1_998 + 3_996);
    assert.equal(h.connector.attemptsFor(a.id).length, 4);
    assert.deepEqual(h.stateChanges(a.id), ['idle->starting', 'starting->down'], 'no connecting between retries');
    // Each failed retry still tells the views the next retry time.
    const retryTimes = h.events.flatMap((event) =>
      event.type === 'status' && event.id === a.id && event.status.nextRetryAt !== null ? [event.status.nextRetryAt] : [],
    );
    assert.equal(new Set(retryTimes).size, 4, `one retry time per failed attempt: ${retryTimes.join(', ')}`);
    assert.ok(
      h.logs.some((line) => line.level === 'info' && line.message === 'a: retrying the connection'),
      'each retry is logged',
    );
    await h.registry.dispose();
  });

  void it('a retry that connects goes from down to verifying, and clears the retry time', async () => {
    const h = harness({ random: () => 0 });
    const a = server('a');
    h.connector.queue(a.id, { fail: new ConnectError('unreachable', 'refused') }, {});
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1);
    assert.equal(stateOf(h, a.id), 'verifying');
    assert.equal(h.registry.get(a.id)?.nextRetryAt, null);
    assert.deepEqual(h.stateChanges(a.id), ['idle->starting', 'starting->down', 'down->verifying']);
    await h.clock.advance(10);
    assert.equal(stateOf(h, a.id), 'up');
    await h.registry.dispose();
  });
});
