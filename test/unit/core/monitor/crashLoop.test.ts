import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BACKOFF_CEILING_MS, CrashLoop, crashLoopSettings, gaveUpReason } from '../../../../src/core/monitor/crashLoop';
import type { MonitorSettings } from '../../../../src/core/monitorTypes';
import { describeState } from '../../../../src/present/states';
import { harness, server, stateOf, testSettings } from './harness';

// Crash loops that give up, as language clients do (issue 21, section 3).
const WINDOW_MS = 3 * 60_000;
const settings: MonitorSettings = { ...testSettings, crashLoop: { crashes: 5, windowMs: WINDOW_MS } };
const crash = {
  dieAfterMs: 2_000,
  death: {
    kind: 'exited' as const,
    message: 'process exited with code 3',
    exitCode: 3,
    signal: null,
    stderrTail: 'Error: STRIPE_SECRET_KEY is not set\n',
  },
};

function delays(logs: readonly { message: string }[]): number[] {
  return logs.flatMap((line) => {
    const match = /reconnecting in (\d+) ms/.exec(line.message);
    return match ? [Number(match[1])] : [];
  });
}

void describe('crash loops', () => {
  void it('stops restarting after 5 crashes in 3 minutes, with the last exit code and stderr tail', async () => {
    const h = harness({ settings });
    const a = server('loop');
    h.connector.always(a.id, crash);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(WINDOW_MS);
    const status = h.registry.get(a.id);
    assert.ok(status);
    assert.equal(status.state, 'gave-up');
    assert.equal(h.connector.attempts.length, 5, 'five starts, five crashes, no sixth');
    assert.equal(status.lastError?.exitCode, 3);
    assert.match(status.stderrTail, /STRIPE_SECRET_KEY is not set/);
    assert.deepEqual(status.gaveUp, { crashes: 5, windowMs: WINDOW_MS });
    assert.equal(status.nextRetryAt, null);
    assert.equal(describeState(status, h.clock.wall()), 'gave up after 5 crashes in 3 min · exited (code 3)');
    assert.ok(
      h.events.some((event) => event.type === 'state' && event.to === 'gave-up' && event.reason === 'gave up after 5 crashes in 3 min'),
    );
    // Nothing is left to fire: it stays given up however long one waits, and a probe request does not restart it.
    await h.clock.advance(60 * 60_000);
    await h.registry.pingNow(a.id);
    assert.equal(h.connector.attempts.length, 5);
    assert.equal(stateOf(h, a.id), 'gave-up');
    await h.registry.dispose();
  });

  void it('starts it fresh on Restart (Reconnect): a start-up budget again and the crash count from zero', async () => {
    const h = harness({ settings: { ...settings, startupTimeoutMs: 40_000 } });
    const a = server('loop');
    h.connector.queue(a.id, crash, crash, crash, crash, crash);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(WINDOW_MS);
    assert.equal(stateOf(h, a.id), 'gave-up');
    await h.registry.reconnect(a.id);
    await h.clock.advance(10);
    assert.equal(stateOf(h, a.id), 'up');
    assert.equal(h.connector.attempts.at(-1)?.options.timeoutMs, 40_000, 'a start, not a reconnect');
    // Verified by its first probe, as after any failure.
    assert.deepEqual(h.stateChanges(a.id).slice(-3), ['gave-up->starting', 'starting->verifying', 'verifying->up']);
    await h.registry.dispose();
  });

  void it('starts it fresh when its definition changes', async () => {
    const h = harness({ settings });
    const a = server('loop');
    h.connector.queue(a.id, crash, crash, crash, crash, crash);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(WINDOW_MS);
    assert.equal(stateOf(h, a.id), 'gave-up');
    h.registry.setServers([server('loop', { env: { FIXED: '1' } })], []);
    await h.clock.advance(10);
    assert.equal(stateOf(h, a.id), 'up');
    await h.registry.dispose();
  });

  void it('keeps restarting crashes spread wider than the window', async () => {
    const h = harness({ settings: { ...settings, crashLoop: { crashes: 3, windowMs: 30_000 } } });
    const a = server('rare');
    h.connector.always(a.id, { ...crash, dieAfterMs: 20_000 });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(10 * 60_000);
    assert.ok(h.connector.attempts.length > 10);
    assert.notEqual(stateOf(h, a.id), 'gave-up');
    await h.registry.dispose();
  });

  void it('caps the back-off at 5 minutes until it gives up, whatever the settings say', async () => {
    const h = harness({ settings: { ...settings, backoff: { initialMs: 60_000, maxMs: 60 * 60_000 } }, random: () => 0.99 });
    const a = server('dead');
    // Never starts (exits are what count as crashes; a refused start is retried with back-off).
    h.connector.always(a.id, { hang: true });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(6 * 60 * 60_000);
    const seen = delays(h.logs);
    assert.ok(seen.length >= 5);
    assert.ok(
      seen.every((delay) => delay <= BACKOFF_CEILING_MS),
      seen.join(', '),
    );
    assert.ok(
      seen.some((delay) => delay >= 0.98 * BACKOFF_CEILING_MS),
      'it grows up to the cap',
    );
    await h.registry.dispose();
  });

  // Issue 22: a bench that kills a server again and again must not make its next recovery slower once it was stable.
  void it('recovers a first crash after a stable stretch in one initial back-off step, even before a probe cleared the flag', async () => {
    // Probes less often than the stable stretch: the crash comes between stableMs and the next probe.
    const stableMs = testSettings.flapping.stableMs;
    const h = harness({
      settings: { ...settings, intervalMs: { stdio: 4 * stableMs, http: 4 * stableMs, sse: 4 * stableMs } },
      random: () => 0.5,
    });
    const a = server('benched');
    const quick = { dieAfterMs: 1_500 };
    h.connector.queue(a.id, quick, quick, quick, quick, { dieAfterMs: stableMs + 5_000 });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(40_000);
    assert.equal(h.registry.get(a.id)?.flapping, true, 'four quick crashes: flapping');
    const before = delays(h.logs).length;
    await h.clock.advance(stableMs + 10_000);
    const after = delays(h.logs).slice(before);
    assert.equal(after[0], testSettings.backoff.initialMs / 2, 'one initial step (full jitter at 0.5)');
    assert.notEqual(stateOf(h, a.id), 'gave-up', 'a crash after a stable stretch is not part of the loop');
    await h.registry.dispose();
  });

  // The bench's detection trials: a kill after an answered probe each time, flapping and the give-up out of reach.
  void it('does not grow the back-off for crashes that each follow an answered probe while not flapping', async () => {
    const h = harness({
      settings: {
        ...settings,
        flapping: { ...testSettings.flapping, restarts: 1_000_000 },
        crashLoop: { crashes: 1_000_000, windowMs: WINDOW_MS },
      },
      random: () => 0.5,
    });
    const a = server('benched');
    const afterOneProbe = { ...crash, dieAfterMs: testSettings.intervalMs.stdio + 500 };
    h.connector.queue(a.id, afterOneProbe, afterOneProbe, afterOneProbe, afterOneProbe, afterOneProbe);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(60_000);
    const seen = delays(h.logs);
    assert.equal(seen.length, 5, seen.join(', '));
    assert.deepEqual(
      seen,
      seen.map(() => testSettings.backoff.initialMs / 2),
      'every recovery one initial step (full jitter at 0.5)',
    );
    await h.registry.dispose();
  });

  void it('gives up on such crashes under the default rule: five in three minutes are a loop, answered probes or not', async () => {
    const h = harness({ settings: { ...settings, flapping: { ...testSettings.flapping, restarts: 1_000_000 } } });
    const a = server('benched');
    const afterOneProbe = { ...crash, dieAfterMs: testSettings.intervalMs.stdio + 500 };
    h.connector.always(a.id, afterOneProbe);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(60_000);
    assert.equal(stateOf(h, a.id), 'gave-up');
    assert.equal(h.connector.attempts.length, 5);
    await h.registry.dispose();
  });
});

void describe('the crash-loop rule', () => {
  void it('counts crashes inside the window and reaches the limit on the Nth', () => {
    const loop = new CrashLoop();
    const rule = { crashes: 3, windowMs: 1_000 };
    assert.equal(loop.recordCrash(0, rule), false);
    assert.equal(loop.recordCrash(500, rule), false);
    assert.equal(loop.recordCrash(1_200, rule), false, 'the first fell out of the window');
    assert.equal(loop.recordCrash(1_400, rule), true);
    loop.reset();
    assert.equal(loop.count, 0);
  });

  void it('reads its settings with floors and names itself', () => {
    assert.deepEqual(crashLoopSettings(undefined), { crashes: 5, windowMs: 180_000 });
    assert.deepEqual(crashLoopSettings({ crashes: 0, windowMs: -1 }), { crashes: 2, windowMs: 1_000 });
    assert.equal(gaveUpReason({ crashes: 5, windowMs: 180_000 }), 'gave up after 5 crashes in 3 min');
    assert.equal(gaveUpReason({ crashes: 4, windowMs: 90_000 }), 'gave up after 4 crashes in 90 s');
  });
});
