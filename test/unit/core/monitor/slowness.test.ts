// The *slow* flag on a fake clock: raised after several answers above the threshold in a row, cleared after several
// below it, per-server thresholds, and off by default.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MonitorSettings } from '../../../../src/core/monitorTypes';
import { defaultSlowSettings } from '../../../../src/core/monitor/slowness';
import { parseSettings } from '../../../../src/present/settingsModel';
import { harness, INTERVAL_MS, server, testSettings } from './harness';

function withRtt(rtt: { ms: number }) {
  return () => ({ outcome: 'ok' as const, afterMs: rtt.ms });
}

async function probeRounds(h: ReturnType<typeof harness>, rounds: number, rttMs: number): Promise<void> {
  for (let round = 0; round < rounds; round++) await h.clock.advance(INTERVAL_MS + rttMs);
}

describe('slow servers', () => {
  it('is raised after three slow answers in a row and cleared after three fast ones', async () => {
    const settings: MonitorSettings = { ...testSettings, slow: { ...defaultSlowSettings, thresholdMs: 50 } };
    const h = harness({ settings });
    const a = server('a');
    const rtt = { ms: 200 };
    h.connector.always(a.id, { probe: withRtt(rtt) });
    h.registry.setServers([a], []);
    h.registry.start();
    await probeRounds(h, 2, rtt.ms);
    assert.equal(h.registry.get(a.id)?.slow, false, 'two slow answers are not enough');
    await probeRounds(h, 1, rtt.ms);
    assert.equal(h.registry.get(a.id)?.slow, true);
    assert.equal(h.registry.get(a.id)?.state, 'up', 'slow is not down');
    assert.ok(h.logs.some((line) => line.level === 'warn' && /a: slow: answers keep taking longer than 50 ms/.test(line.message)));

    rtt.ms = 5;
    await probeRounds(h, 2, rtt.ms);
    assert.equal(h.registry.get(a.id)?.slow, true, 'one or two fast answers do not clear it');
    await probeRounds(h, 1, rtt.ms);
    assert.equal(h.registry.get(a.id)?.slow, false);
    await h.registry.dispose();
  });

  it('takes a per-server threshold over the default, and is off without one', async () => {
    const settings: MonitorSettings = {
      ...testSettings,
      slow: { ...defaultSlowSettings, thresholdMs: null, serverThresholdMs: { strict: 10 } },
    };
    const h = harness({ settings });
    const strict = server('strict');
    const relaxed = server('relaxed');
    for (const config of [strict, relaxed]) h.connector.always(config.id, { probe: withRtt({ ms: 100 }) });
    h.registry.setServers([strict, relaxed], []);
    h.registry.start();
    await probeRounds(h, 4, 100);
    assert.equal(h.registry.get(strict.id)?.slow, true);
    assert.equal(h.registry.get(relaxed.id)?.slow, false);
    await h.registry.dispose();
  });

  it('is off by default, whatever the round trip', async () => {
    const h = harness();
    const a = server('a');
    h.connector.always(a.id, { probe: withRtt({ ms: 1_500 }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await probeRounds(h, 5, 1_500);
    assert.equal(h.registry.get(a.id)?.slow, false);
    await h.registry.dispose();
  });
});

describe('slow threshold settings', () => {
  it('reads mcpHealth.slowThresholdMs and per-server slowThresholdMs; 0 is off', () => {
    const values: Record<string, unknown> = {
      slowThresholdMs: 400,
      serverOverrides: { github: { slowThresholdMs: 900 }, bad: { slowThresholdMs: -1 } },
    };
    const settings = parseSettings((key) => values[key]);
    assert.equal(settings.monitor.slow?.thresholdMs, 400);
    assert.deepEqual(settings.monitor.slow?.serverThresholdMs, { github: 900 });
    assert.equal(parseSettings((key) => (key === 'slowThresholdMs' ? 0 : undefined)).monitor.slow, undefined);
  });
});
