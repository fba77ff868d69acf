import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectError } from '../../../../src/core/connection';
import type { MonitorEvent } from '../../../../src/core/monitorTypes';
import { judgeTimer, sleptText, SUSPEND_THRESHOLD_MS, suspendAwareClock, type Suspension } from '../../../../src/core/monitor/suspend';
import { ProbeStatistics } from '../../../../src/core/monitor/probeStats';
import { FakeClock } from '../../../helpers/fakeClock';
import { answerOk } from '../../../helpers/fakeConnector';
import { harness, INTERVAL_MS, server } from './harness';

const MINUTE = 60_000;

void describe('suspend detection: the policy', () => {
  void it('takes an on-time or merely delayed timer for what it is', () => {
    assert.equal(judgeTimer({ monotonic: 0, wall: 0 }, 5_000, { monotonic: 5_003, wall: 5_003 }), null);
    // A starved event loop delays a timer by seconds at worst: below the threshold.
    assert.equal(
      judgeTimer({ monotonic: 0, wall: 0 }, 5_000, { monotonic: 5_000 + SUSPEND_THRESHOLD_MS - 1, wall: 5_000 + SUSPEND_THRESHOLD_MS - 1 }),
      null,
    );
  });

  void it('sees a frozen process in a timer that fires far later than it was due', () => {
    const suspension = judgeTimer({ monotonic: 1_000, wall: 50_000 }, 5_000, {
      monotonic: 6_000 + 12 * MINUTE,
      wall: 55_000 + 12 * MINUTE,
    });
    assert.deepEqual(suspension, {
      sleptMs: 12 * MINUTE,
      wallFrom: 55_000,
      wallTo: 55_000 + 12 * MINUTE,
      monotonicFrom: 6_000,
      monotonicTo: 6_000 + 12 * MINUTE,
      detectedBy: 'late-timer',
    });
  });

  void it('sees a system suspend in the wall clock running ahead of a monotonic clock that stopped', () => {
    const suspension = judgeTimer({ monotonic: 1_000, wall: 50_000 }, 5_000, { monotonic: 6_000, wall: 55_000 + 12 * MINUTE });
    assert.equal(suspension?.detectedBy, 'clock-jump');
    assert.equal(suspension?.sleptMs, 12 * MINUTE);
    assert.deepEqual([suspension?.wallFrom, suspension?.wallTo], [55_000, 55_000 + 12 * MINUTE]);
    assert.equal(suspension?.monotonicTo, suspension?.monotonicFrom, 'nothing to take out of monotonic uptime');
  });

  void it('says how long it slept as the wake line does', () => {
    assert.equal(sleptText(45_000), '45 s');
    assert.equal(sleptText(12 * MINUTE), '12 min');
    assert.equal(sleptText(125 * MINUTE), '2 h 5 min');
  });
});

void describe('suspend detection: the clock', () => {
  void it('reports one wake for a burst of late timers, before the first late callback, and none for on-time timers', async () => {
    const fake = new FakeClock();
    const order: string[] = [];
    const wakes: Suspension[] = [];
    const clock = suspendAwareClock(fake, (suspension) => {
      wakes.push(suspension);
      order.push('wake');
    });
    clock.setTimeout(() => order.push('a'), 1_000);
    await fake.advance(1_000);
    assert.deepEqual(order, ['a']);
    for (const name of ['b', 'c', 'd']) clock.setTimeout(() => order.push(name), 5_000);
    fake.sleep(10 * MINUTE);
    await fake.advance(0);
    assert.deepEqual(order, ['a', 'wake', 'b', 'c', 'd']);
    assert.equal(wakes.length, 1);
    // A timer scheduled after the wake is judged afresh: the next sleep is a wake of its own.
    clock.setTimeout(() => order.push('e'), 5_000);
    fake.sleep(3 * MINUTE, { monotonicStops: true });
    await fake.advance(5_000);
    assert.deepEqual(order.slice(-2), ['wake', 'e']);
    assert.equal(wakes[1]?.detectedBy, 'clock-jump');
  });

  void it('does not run a late timer the wake cleared', async () => {
    const fake = new FakeClock();
    let ran = 0;
    let handle: ReturnType<typeof fake.setTimeout> | null = null;
    const clock = suspendAwareClock(fake, () => {
      if (handle) clock.clearTimeout(handle);
    });
    handle = clock.setTimeout(() => (ran += 1), 5_000);
    fake.sleep(MINUTE);
    await fake.advance(0);
    assert.equal(ran, 0);
    assert.equal(fake.pendingTimers(), 0);
  });
});

void describe('probe statistics across a suspend', () => {
  void it('leaves the gap out of both the observed and the up time', () => {
    const stats = new ProbeStatistics();
    stats.startObserving(0);
    stats.noteUp(true, 0);
    stats.noteVerified();
    stats.noteUp(false, 30_000); // down from 30 s on
    stats.unobserved(60_000, 60_000 + 10 * MINUTE);
    stats.noteUp(true, 60_000 + 10 * MINUTE);
    stats.noteVerified();
    // Observed: 60 s before the gap, 30 s after; up 30 s + 30 s. Without the gap out it would read 60 / 690.
    assert.equal(stats.uptimePercent(90_000 + 10 * MINUTE), (60_000 / 90_000) * 100);
  });
});

void describe('the registry on wake', () => {
  void it('logs the wake, probes every server once at once, and reconnects a session the server forgot', async () => {
    const h = harness();
    const ids = ['a', 'b', 'c'].map((name) => server(name, { transport: 'http', url: `http://127.0.0.1:1/${name}` }));
    h.registry.setServers(ids, []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS * 3);
    for (const config of ids) assert.equal(h.registry.get(config.id)?.state, 'up');
    const before = new Map(ids.map((config) => [config.id, h.connector.latest(config.id)] as const));
    // b's server restarted while the machine slept: its session is gone, the next request on it fails.
    before.get(ids[1]!.id)!.probeScript = () => ({ outcome: 'failed', detail: 'HTTP 404: session not found' });
    const eventsBefore = h.events.length;

    h.clock.sleep(12 * MINUTE);
    await h.clock.advance(0);
    const wakes = h.events.slice(eventsBefore).filter((event): event is Extract<MonitorEvent, { type: 'wake' }> => event.type === 'wake');
    assert.equal(wakes.length, 1, 'one wake, however many timers were late');
    assert.ok(
      h.logs.some((line) => line.message === 'resumed after 12 min asleep: probing all servers'),
      'the ping log says so',
    );
    const wokeAt = h.clock.monotonic();
    for (const connection of before.values()) {
      assert.equal(
        connection.probes.filter((probe) => probe.at >= wokeAt).length,
        1,
        `${connection.serverId}: one probe right after the wake`,
      );
    }

    // The expired session reconnects through the normal path (the shortest back-off) and is up again.
    await h.clock.advance(2_000);
    assert.equal(h.connector.connectionsFor(ids[1]!.id).length, 2);
    assert.equal(h.registry.get(ids[1]!.id)?.state, 'up');
    for (const id of [ids[0]!.id, ids[2]!.id])
      assert.equal(h.connector.connectionsFor(id).length, 1, 'the healthy ones keep their session');
    await h.registry.dispose();
  });

  void it('keeps the slept time out of uptime: a server down before the sleep is not down for the whole sleep', async () => {
    const h = harness();
    const config = server('flaky', { transport: 'http', url: 'http://127.0.0.1:1/mcp' });
    const refused = { fail: new ConnectError('unreachable', 'connection refused') };
    h.connector.always(config.id, refused);
    h.registry.setServers([config], []);
    h.registry.start();
    await h.clock.advance(20_000);
    assert.equal(h.registry.get(config.id)?.state, 'down');
    const attemptsBefore = h.connector.attemptsFor(config.id).length;
    // The server came back while the machine slept.
    h.connector.always(config.id, { probe: answerOk });
    h.clock.sleep(10 * MINUTE);
    await h.clock.advance(0);
    assert.equal(h.connector.attemptsFor(config.id).length, attemptsBefore + 1, 'the late retry and the wake round are one connect');
    await h.clock.advance(1_000);
    assert.equal(h.registry.get(config.id)?.state, 'up', 'the wake retried at once');
    await h.clock.advance(20_000);
    const uptime = h.registry.get(config.id)?.stats.uptimePercent ?? 0;
    // About 21 s up of about 41 s observed; the sleep counted as down would read about 3 %.
    assert.ok(uptime > 40 && uptime < 60, `uptime ${uptime}`);
    await h.registry.dispose();
  });

  void it('handles a suspend the monotonic clock did not see (Linux, macOS) the same way', async () => {
    const h = harness();
    const config = server('one', { transport: 'http', url: 'http://127.0.0.1:1/mcp' });
    h.registry.setServers([config], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 100);
    const connection = h.connector.latest(config.id);
    const probesBefore = connection.probes.length;
    h.clock.sleep(30 * MINUTE, { monotonicStops: true });
    // Nothing is late by monotonic reckoning: the next timer, on time, sees the wall clock ahead.
    await h.clock.advance(INTERVAL_MS + 100);
    assert.equal(h.events.filter((event) => event.type === 'wake').length, 1);
    assert.ok(h.logs.some((line) => line.message === 'resumed after 30 min asleep: probing all servers'));
    assert.equal(connection.probes.length, probesBefore + 1, 'the due probe and the wake round are one probe');
    await h.registry.dispose();
  });
});

void describe('a wake told after I/O that was waiting', () => {
  void it('takes the gap back out of an up stretch that ended after the sleep but before the wake was noticed', () => {
    const stats = new ProbeStatistics();
    stats.startObserving(0);
    stats.noteUp(true, 0);
    stats.noteVerified();
    // Asleep from 60 s to 11 min; a connection closed meanwhile is handled first, the wake just after.
    stats.noteUp(false, 11 * MINUTE);
    stats.unobserved(60_000, 11 * MINUTE);
    assert.equal(stats.uptimePercent(11 * MINUTE), 100, 'up for the 60 s observed, not for 11 min');
    stats.noteUp(false, 12 * MINUTE);
    assert.equal(stats.uptimePercent(12 * MINUTE), 50);
  });
});
