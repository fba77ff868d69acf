import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { harness, server, testSettings } from './harness';

const settings = { ...testSettings, serverIntervalMs: { a: 1_000 } };
const { stableMs } = settings.flapping;

void describe('flapping', () => {
  void it('flags a crash loop even while its last probe succeeded, and clears the flag only after a stable stretch', async () => {
    const h = harness({ settings, random: () => 0.5 });
    const a = server('a');
    // Each life: connect, one good probe at +1 s, exit at +2 s; the backoff (reset by the good probe) is 0.5 s.
    h.connector.queue(a.id, { dieAfterMs: 2_000 }, { dieAfterMs: 2_000 }, { dieAfterMs: 2_000 });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(5_000 + 1);
    assert.equal(h.registry.get(a.id)?.restarts, 2);
    assert.equal(h.registry.get(a.id)?.flapping, false, 'two restarts are not yet a pattern');

    await h.clock.advance(2_500 + 1_005);
    const status = h.registry.get(a.id);
    assert.equal(status?.restarts, 3);
    assert.equal(status?.state, 'up');
    assert.equal(status?.stats.recent.at(-1)?.outcome, 'ok');
    assert.equal(status?.flapping, true, 'up with a good probe, yet flagged');
    assert.equal(status?.lastError?.kind, 'exited', 'the last crash stays visible');
    assert.equal(status?.lastError?.exitCode, 1);
    const wallOrigin = h.clock.wall() - h.clock.monotonic();
    assert.deepEqual(
      status?.stats.restartTimes,
      [2_500, 5_000, 7_500].map((time) => wallOrigin + time),
    );
    assert.ok(h.logs.some((line) => line.level === 'warn' && line.message.includes('flapping')));

    // The fourth life does not crash: the flag holds until stableMs of uninterrupted uptime.
    await h.clock.advance(stableMs - 1_005 - 1_000);
    assert.equal(h.registry.get(a.id)?.flapping, true);
    await h.clock.advance(2_100);
    assert.equal(h.registry.get(a.id)?.flapping, false);
    assert.equal(h.registry.get(a.id)?.restarts, 3, 'the count stays as history');
    await h.registry.dispose();
  });

  void it('does not flag restarts spread wider than the window', async () => {
    const h = harness({ settings, random: () => 0.5 });
    const a = server('a');
    const life = { dieAfterMs: testSettings.flapping.windowMs / 2 };
    h.connector.queue(a.id, life, life, life, life);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(3 * testSettings.flapping.windowMs);
    const status = h.registry.get(a.id);
    assert.ok((status?.restarts ?? 0) >= 4);
    assert.equal(status?.flapping, false);
    await h.registry.dispose();
  });

  void it("a crash loop's backoff keeps growing through its good probes and resets only after the stable window", async () => {
    // The give-up (crashLoop.test.ts) is out of the way here: this is about the back-off before it.
    const h = harness({ settings: { ...settings, crashLoop: { crashes: 100, windowMs: 60_000 } }, random: () => 0.5 });
    const a = server('a');
    // Eight lives of 2 s, each with a good probe at +1 s; then one that lives past the stable window and dies.
    const crash = { dieAfterMs: 2_000 };
    h.connector.queue(a.id, crash, crash, crash, crash, crash, crash, crash, crash, { dieAfterMs: stableMs + 5_000 });
    h.registry.setServers([a], []);
    h.registry.start();
    const delays = () =>
      h.logs.flatMap((line) => {
        const match = /reconnecting in (\d+) ms/.exec(line.message);
        return match ? [Number(match[1])] : [];
      });
    await h.clock.advance(60_000);
    const { initialMs, maxMs } = settings.backoff;
    // Before the flag (three restarts) a good probe still resets the delay; after it, the delay doubles to the cap.
    assert.deepEqual(delays().slice(0, 8), [
      initialMs / 2,
      initialMs / 2,
      initialMs / 2,
      initialMs,
      2 * initialMs,
      4 * initialMs,
      maxMs / 2,
      maxMs / 2,
    ]);
    assert.equal(h.registry.get(a.id)?.flapping, true);

    await h.clock.advance(stableMs + 10_000);
    assert.equal(h.registry.get(a.id)?.flapping, false, 'the long life cleared the flag');
    assert.equal(delays()[8], initialMs / 2, 'and with it the backoff');
    await h.registry.dispose();
  });
});
