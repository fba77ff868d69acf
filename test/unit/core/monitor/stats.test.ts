import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectError } from '../../../../src/core/connection';
import { percentile, PROBE_HISTORY_SIZE } from '../../../../src/core/monitor/index';
import { ProbeStatistics } from '../../../../src/core/monitor/probeStats';
import { harness, INTERVAL_MS, server, TIMEOUT_MS } from './harness';

void describe('probe statistics', () => {
  void it('takes nearest-rank percentiles', () => {
    assert.equal(percentile([], 0.5), null);
    assert.equal(percentile([7], 0.95), 7);
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    assert.equal(percentile(hundred, 0.5), 50);
    assert.equal(percentile(hundred, 0.95), 95);
    assert.equal(percentile([1, 2, 3, 4], 0.5), 2);
  });

  void it('keeps only the last 100 probes and computes p50/p95 over the ok RTTs among them', () => {
    const stats = new ProbeStatistics();
    for (let index = 0; index < 50; index += 1) {
      stats.record({ at: index, method: 'ping', outcome: 'ok', rttMs: 1_000 });
    }
    for (let index = 1; index <= 100; index += 1) {
      stats.record({ at: 100 + index, method: 'ping', outcome: index % 10 === 0 ? 'timeout' : 'ok', rttMs: index });
    }
    const snapshot = stats.snapshot(0);
    assert.equal(snapshot.samples, PROBE_HISTORY_SIZE);
    assert.equal(snapshot.recent[0]?.at, 101, 'the oldest records were dropped');
    assert.equal(snapshot.samplesOk, 90);
    assert.deepEqual(snapshot.totals, { sent: 150, ok: 140, failed: 10 }, 'the totals count every probe, not the window');
    // ok RTTs are 1..100 without the multiples of ten: 90 values; the 45th is 49, the 86th is 95.
    assert.equal(snapshot.p50Ms, 49);
    assert.equal(snapshot.p95Ms, 95);
  });

  void it('measures uptime as the share of observed time spent up', () => {
    const stats = new ProbeStatistics();
    assert.equal(stats.uptimePercent(0), null, 'nothing observed yet');
    stats.startObserving(1_000);
    stats.noteUp(true, 2_000);
    stats.noteVerified();
    stats.noteUp(false, 5_000);
    assert.equal(stats.uptimePercent(5_000), 75);
    stats.noteUp(true, 9_000);
    stats.noteVerified();
    assert.equal(stats.uptimePercent(13_000), (7_000 / 12_000) * 100);
  });

  void it('counts time up only once a probe answered on that connection', () => {
    const stats = new ProbeStatistics();
    stats.startObserving(0);
    stats.noteUp(true, 0);
    assert.equal(stats.uptimePercent(4_000), 0, 'a handshake alone is not proof');
    stats.noteUp(false, 5_000);
    assert.equal(stats.uptimePercent(10_000), 0, 'an unproven stretch is dropped when it ends');
    stats.noteUp(true, 10_000);
    stats.noteVerified();
    assert.equal(stats.uptimePercent(20_000), 50, 'a proven stretch counts from its connect on');
  });

  void it('reports RTT, percentiles, uptime and failures through the registry', async () => {
    const h = harness();
    const a = server('a');
    let rtt = 0;
    h.connector.always(a.id, { probe: () => ({ outcome: 'ok', afterMs: (rtt += 10) }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(4 * (INTERVAL_MS + 50));
    const status = h.registry.get(a.id);
    assert.equal(status?.state, 'up');
    assert.equal(status?.stats.samples, 4);
    assert.deepEqual(status?.stats.totals, { sent: 4, ok: 4, failed: 0 });
    assert.deepEqual(
      status?.stats.recent.map((record) => record.rttMs),
      [10, 20, 30, 40],
    );
    assert.equal(status?.lastRttMs, 40);
    assert.equal(status?.stats.p50Ms, 20);
    assert.equal(status?.stats.p95Ms, 40);
    assert.equal(status?.stats.uptimePercent, 100);
    assert.equal(status?.consecutiveFailures, 0);
    assert.equal(status?.lastProbeAt, h.clock.wall() - (h.clock.monotonic() - (4 * INTERVAL_MS + 10 + 20 + 30 + 40)));

    // The server stalls: one timeout, then reconnect attempts fail for a while.
    h.connector.latest(a.id).probeScript = () => ({ outcome: 'timeout' });
    h.connector.always(a.id, { fail: new ConnectError('unreachable', 'refused') });
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS);
    const down = h.registry.get(a.id);
    assert.equal(down?.state, 'down');
    assert.equal(down?.lastError?.kind, 'timeout');
    assert.ok((down?.consecutiveFailures ?? 0) >= 1);
    const upToDownEvent = h.events.find((event) => event.type === 'state' && event.from === 'up' && event.to === 'down');
    assert.ok(upToDownEvent && upToDownEvent.type === 'state');
    // Connected at monotonic 0 (wall origin), up until the timeout was noticed, down since.
    const wallOrigin = h.clock.wall() - h.clock.monotonic();
    const upMs = (upToDownEvent.status.lastStateChangeAt ?? 0) - wallOrigin;
    const expected = (upMs / h.clock.monotonic()) * 100;
    assert.ok(expected > 50 && expected < 100);
    assert.ok(Math.abs((down?.stats.uptimePercent ?? 0) - expected) < 1e-9, `${down?.stats.uptimePercent} vs ${expected}`);
    await h.registry.dispose();
  });
});
