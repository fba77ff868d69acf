// A non-conformant verdict is not for life: the era's probe is tried again every PING_RETEST_INTERVAL_MS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PING_RETEST_INTERVAL_MS } from '../../../../src/core/monitor/serverMonitor';
import { harness, INTERVAL_MS, server, stateOf, testSettings, TIMEOUT_MS } from './harness';

/** Ping goes unanswered while `stalled` holds; everything else is answered. */
function stallablePing() {
  const control = { stalled: true };
  const probe = (method: string) =>
    method === 'ping' && control.stalled ? { outcome: 'timeout' as const } : { outcome: 'ok' as const, afterMs: 5 };
  return { control, probe };
}

void describe('ignores ping is re-tested', () => {
  void it('a server branded for ignoring ping during a stall gets ping again after ten minutes and returns to normal', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    const { control, probe } = stallablePing();
    h.connector.always(a.id, { probe });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS + testSettings.backoff.initialMs + TIMEOUT_MS + 6);
    assert.equal(h.registry.get(a.id)?.nonConformant, true, 'branded after two fresh connections ignored ping');
    const connection = h.connector.latest(a.id);

    control.stalled = false;
    await h.clock.advance(PING_RETEST_INTERVAL_MS - 2 * INTERVAL_MS);
    assert.equal(h.registry.get(a.id)?.nonConformant, true, 'not before the interval');
    assert.ok(connection.probes.slice(2).every((call) => call.method === 'tools/list'));

    await h.clock.advance(2 * INTERVAL_MS + 10);
    const status = h.registry.get(a.id);
    assert.equal(status?.nonConformant, false);
    assert.equal(status?.state, 'up');
    await h.clock.advance(3 * INTERVAL_MS);
    assert.deepEqual(
      connection.probes.slice(-3).map((call) => call.method),
      ['ping', 'ping', 'ping'],
      'normal probing resumed',
    );
    assert.equal(h.connector.attempts.length, 2, 'the re-test reconnects nothing');
    assert.ok(h.logs.some((line) => line.level === 'info' && /ping answered properly again/.test(line.message)));
    await h.registry.dispose();
  });

  void it('still ignoring ping: the verdict stands, the server stays alive on tools/list, and ping is tried once per interval', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    const { probe } = stallablePing();
    h.connector.always(a.id, { probe });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS + testSettings.backoff.initialMs + TIMEOUT_MS + 6);
    const connection = h.connector.latest(a.id);
    const pingsBefore = connection.probes.filter((call) => call.method === 'ping').length;

    await h.clock.advance(2 * PING_RETEST_INTERVAL_MS + INTERVAL_MS);
    assert.equal(connection.probes.filter((call) => call.method === 'ping').length - pingsBefore, 2, 'one ping per re-test interval');
    assert.equal(stateOf(h, a.id), 'suspect');
    assert.equal(h.registry.get(a.id)?.nonConformant, true);
    assert.equal(h.connector.attempts.length, 2, 'no reconnect for a failed re-test');
    await h.registry.dispose();
  });

  void it('a server that answered ping wrongly is re-tested the same way', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    let wrong = true;
    h.connector.always(a.id, {
      probe: (method) =>
        method === 'ping' && wrong ? { outcome: 'non-empty', afterMs: 3, detail: '{"x":1}' } : { outcome: 'ok', afterMs: 4 },
    });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 5 + testSettings.backoff.initialMs + 20);
    assert.equal(h.registry.get(a.id)?.nonConformant, true);
    wrong = false;
    await h.clock.advance(PING_RETEST_INTERVAL_MS + INTERVAL_MS);
    assert.equal(h.registry.get(a.id)?.nonConformant, false);
    assert.equal(stateOf(h, a.id), 'up');
    await h.registry.dispose();
  });
});
