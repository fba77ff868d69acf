import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Keepalive, type KeepaliveMethod } from '../../../src/guard/keepalive';
import { FakeClock } from '../../helpers/fakeClock';

function harness(method: KeepaliveMethod | null = 'ping') {
  const clock = new FakeClock();
  const sent: Array<{ id: string; at: number }> = [];
  const dead: string[] = [];
  const violations: string[] = [];
  const keepalive = new Keepalive(
    clock,
    { intervalMs: 30_000, timeoutMs: 5_000 },
    {
      send: (id) => {
        if (method) sent.push({ id, at: clock.monotonic() });
        return method;
      },
      dead: (reason) => dead.push(reason),
      violation: (reason) => violations.push(reason),
    },
  );
  return { clock, sent, dead, violations, keepalive };
}

void describe('guard keepalive', () => {
  void it('probes only after the interval of upstream idleness, and any upstream traffic pushes the probe back', async () => {
    const { clock, sent, keepalive } = harness();
    keepalive.start();
    await clock.advance(20_000);
    keepalive.activity();
    await clock.advance(20_000);
    assert.equal(sent.length, 0, 'traffic 20 s in restarts the idle wait');
    await clock.advance(10_000);
    assert.deepEqual(
      sent.map((probe) => probe.at),
      [50_000],
    );
    assert.match(sent[0]!.id, /^mcp-health-guard:probe-/);
  });

  void it('takes a proper pong, records its RTT and waits a full interval again', async () => {
    const { clock, sent, keepalive, violations, dead } = harness();
    keepalive.start();
    await clock.advance(30_000);
    await clock.advance(12);
    assert.equal(keepalive.answer(sent[0]!.id, { result: {} }), true);
    assert.equal(keepalive.snapshot.lastRttMs, 12);
    await clock.advance(29_999);
    assert.equal(sent.length, 1);
    await clock.advance(1);
    assert.equal(sent.length, 2);
    assert.deepEqual([violations, dead], [[], []]);
  });

  void it('declares the upstream dead when a probe times out with no other sign of life, without retrying', async () => {
    const { clock, sent, keepalive, dead } = harness();
    keepalive.start();
    await clock.advance(30_000 + 5_000);
    assert.equal(sent.length, 1);
    assert.deepEqual(dead, ['did not answer a keepalive ping within 5000 ms']);
    await clock.advance(120_000);
    assert.equal(sent.length, 1, 'no retry and no further probe until restarted');
    assert.equal(clock.pendingTimers(), 0);
  });

  void it('reports wrong answers once per streak instead of on every probe', async () => {
    const { clock, sent, keepalive, violations } = harness();
    keepalive.start();
    for (let i = 0; i < 3; i++) {
      await clock.advance(30_000);
      keepalive.answer(sent[i]!.id, { error: { code: -32603, message: 'boom' } });
    }
    assert.equal(violations.length, 1);
    assert.equal(keepalive.snapshot.violations, 3);
    await clock.advance(30_000);
    keepalive.answer(sent[3]!.id, { result: {} });
    await clock.advance(30_000);
    keepalive.answer(sent[4]!.id, { result: { status: 'ok' } });
    assert.equal(violations.length, 2, 'a new streak after a good answer is reported again');
  });

  void it('stops probing a server that answers other traffic but not the probe (no restart storm)', async () => {
    const { clock, sent, keepalive, violations, dead } = harness();
    keepalive.start();
    await clock.advance(30_000);
    keepalive.activity();
    await clock.advance(5_000);
    assert.deepEqual(dead, []);
    assert.equal(violations.length, 1);
    assert.match(violations[0]!, /keepalive probes stopped/);
    keepalive.start();
    await clock.advance(300_000);
    assert.equal(sent.length, 1);
  });

  void it('swallows a late answer to a timed-out probe', async () => {
    const { clock, sent, keepalive } = harness();
    keepalive.start();
    await clock.advance(35_000);
    assert.equal(keepalive.answer(sent[0]!.id, { result: {} }), true);
    assert.equal(keepalive.answer('client-id', { result: {} }), false);
  });

  void it('sends nothing while the era is unknown, and tries again an interval later', async () => {
    const { clock, keepalive } = harness(null);
    keepalive.start();
    await clock.advance(90_000);
    assert.equal(keepalive.snapshot.probes, 0);
    assert.equal(clock.pendingTimers(), 1);
    keepalive.stop();
    assert.equal(clock.pendingTimers(), 0);
  });

  void it("judges answers by the monitor's rule: a DiscoverResult without supportedVersions is a violation", async () => {
    const { clock, sent, keepalive, violations } = harness('server/discover');
    keepalive.start();
    await clock.advance(30_000);
    keepalive.answer(sent[0]!.id, { result: { supportedVersions: ['2026-07-28'], capabilities: {} } });
    assert.deepEqual(violations, []);
    await clock.advance(30_000);
    keepalive.answer(sent[1]!.id, { result: { capabilities: {} } });
    assert.deepEqual(violations, ['answered the keepalive server/discover with result without supportedVersions {"capabilities":{}}']);
  });
});
