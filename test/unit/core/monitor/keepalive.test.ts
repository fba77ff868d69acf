import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TimerHandle } from '../../../../src/core/clock';
import { FakeClock } from '../../../helpers/fakeClock';
import { harness, INTERVAL_MS, server, testSettings, TIMEOUT_MS } from './harness';

/**
 * Fires each timer of a second or more `earlyMs` before it is due by the monotonic clock, as Node's do (they run on the
 * event loop's whole-millisecond clock, read at the start of the loop's turn), and keeps every delay asked for.
 */
class EarlyTimersClock extends FakeClock {
  readonly delays: number[] = [];

  constructor(private readonly earlyMs: number) {
    super();
  }

  override setTimeout(callback: () => void, ms: number): TimerHandle {
    this.delays.push(ms);
    return super.setTimeout(callback, ms >= 1000 ? ms - this.earlyMs : ms);
  }
}

void describe('keepalive scheduling', () => {
  void it('connects on start and probes only after the connection has been idle for the interval', async () => {
    const h = harness();
    const a = server('a');
    h.registry.setServers([a], []);
    assert.equal(h.connector.attempts.length, 0, 'nothing connects before start()');
    h.registry.start();
    await h.clock.advance(INTERVAL_MS - 1);
    assert.equal(h.registry.get(a.id)?.state, 'up');
    assert.equal(h.connector.latest(a.id).probes.length, 0, 'no probe before the idle interval');
    await h.clock.advance(1);
    await h.clock.advance(2 * INTERVAL_MS + 10);
    const probes = h.connector.latest(a.id).probes;
    // Each probe's reply is traffic too: the next one is due an interval after it.
    assert.deepEqual(
      probes.map((probe) => probe.at),
      [INTERVAL_MS, 2 * INTERVAL_MS + 5, 3 * INTERVAL_MS + 10],
    );
    assert.ok(probes.every((probe) => probe.timeoutMs === TIMEOUT_MS && probe.requested === undefined));
    assert.equal(h.connector.attempts.length, 1);
    await h.registry.dispose();
  });

  void it('pushes the probe back on any traffic from the server', async () => {
    const h = harness();
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(6_000);
    h.connector.latest(a.id).emitActivity();
    await h.clock.advance(INTERVAL_MS - 1);
    assert.equal(h.connector.latest(a.id).probes.length, 0, 'traffic at 6 s moved the probe to 16 s');
    await h.clock.advance(1);
    assert.deepEqual(
      h.connector.latest(a.id).probes.map((probe) => probe.at),
      [6_000 + INTERVAL_MS],
    );
    await h.registry.dispose();
  });

  void it('sends the idle probe when its timer fires a little early, with no second timer for the rest of the wait', async () => {
    const clock = new EarlyTimersClock(0.6);
    const h = harness({ clock });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(3 * INTERVAL_MS + 20);
    // Each answer comes 5 ms after its probe; the next probe is one interval after it, less the 0.6 ms.
    assert.deepEqual(
      h.connector.latest(a.id).probes.map((probe) => Math.round(probe.at * 10) / 10),
      [INTERVAL_MS - 0.6, 2 * INTERVAL_MS + 5 - 1.2, 3 * INTERVAL_MS + 10 - 1.8],
    );
    assert.deepEqual(
      clock.delays.filter((ms) => ms > 0 && ms < 1),
      [],
      'a timer for the sliver of the interval left by monotonic reckoning',
    );
    await h.registry.dispose();
  });

  void it('never has two probes out at once, even with a short interval, a slow server and manual pings', async () => {
    const h = harness({ settings: { ...testSettings, serverIntervalMs: { a: 1_000 } } });
    const a = server('a');
    h.connector.always(a.id, { probe: () => ({ outcome: 'ok', afterMs: 1_800 }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1_000);
    const connection = h.connector.latest(a.id);
    assert.equal(connection.probes.length, 1);
    const manual = h.registry.pingNow(a.id);
    await h.clock.advance(1_000);
    assert.equal(connection.probes.length, 1, 'the manual ping joined the probe in flight');
    await h.clock.advance(800);
    const results = await manual;
    assert.equal(results.get(a.id)?.outcome, 'ok');
    assert.equal(results.get(a.id)?.rttMs, 1_800);
    await h.clock.advance(10_000);
    assert.equal(connection.maxConcurrentProbes, 1);
    const times = connection.probes.map((probe) => probe.at);
    assert.deepEqual(times.slice(0, 4), [1_000, 3_800, 6_600, 9_400], 'next probe = previous reply + interval');
    await h.registry.dispose();
  });

  void it('takes the interval per transport, overridden per server by name or id', async () => {
    const h = harness({
      settings: {
        ...testSettings,
        intervalMs: { stdio: 30_000, http: 20_000, sse: 25_000 },
        serverIntervalMs: { byName: 5_000, '/work/ws/.vscode/mcp.json#byId': 7_000 },
      },
    });
    const servers = [
      server('stdio'),
      server('http', { transport: 'http', url: 'http://127.0.0.1:1/mcp' }),
      server('sse', { transport: 'sse', url: 'http://127.0.0.1:1/sse' }),
      server('byName', { transport: 'http', url: 'http://127.0.0.1:2/mcp' }),
      server('byId'),
    ];
    h.registry.setServers(servers, []);
    h.registry.start();
    await h.clock.advance(30_000);
    const firstProbe = (name: string) => h.connector.latest(servers.find((s) => s.name === name)?.id ?? '').probes[0]?.at;
    assert.equal(firstProbe('stdio'), 30_000);
    assert.equal(firstProbe('http'), 20_000);
    assert.equal(firstProbe('sse'), 25_000);
    assert.equal(firstProbe('byName'), 5_000);
    assert.equal(firstProbe('byId'), 7_000);
    await h.registry.dispose();
  });

  void it('keeps a floor under the interval so a zero setting cannot spin', async () => {
    const h = harness({ settings: { ...testSettings, intervalMs: { stdio: 0, http: 0, sse: 0 } } });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(10_000);
    const count = h.connector.latest(a.id).probes.length;
    assert.ok(count >= 5 && count <= 10, `${count} probes in 10 s`);
    await h.registry.dispose();
  });

  void it('re-times the idle timer when settings change, without reconnecting', async () => {
    const h = harness();
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1_000);
    h.registry.updateSettings({ ...testSettings, intervalMs: { stdio: 3_000, http: 3_000, sse: 3_000 } });
    await h.clock.advance(2_000);
    assert.deepEqual(
      h.connector.latest(a.id).probes.map((probe) => probe.at),
      [3_000],
    );
    h.registry.updateSettings({ ...testSettings, timeoutMs: 1_500 });
    await h.clock.advance(INTERVAL_MS + 5);
    assert.equal(h.connector.latest(a.id).probes[1]?.timeoutMs, 1_500);
    assert.equal(h.connector.attempts.length, 1);
    await h.registry.dispose();
  });

  void it('probes a modern server with server/discover and hands the cached era to every reconnect', async () => {
    const h = harness();
    const a = server('a');
    h.connector.queue(a.id, { era: 'modern' });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS);
    const first = h.connector.latest(a.id);
    assert.equal(first.probes[0]?.method, 'server/discover');
    assert.equal(h.connector.attempts[0]?.options.eraHint, null);
    assert.equal(h.connector.attempts[0]?.options.timeoutMs, testSettings.connectTimeoutMs);
    first.die({ kind: 'exited', message: 'exited with code 1', exitCode: 1 });
    await h.clock.advance(testSettings.backoff.maxMs);
    assert.equal(h.connector.attempts[1]?.options.eraHint, 'modern');
    assert.equal(h.registry.get(a.id)?.era, 'modern');
    assert.equal(h.registry.get(a.id)?.protocolVersion, '2026-07-28');
    await h.registry.dispose();
  });

  void it('logs each probe at info (the channel default) with server, method, request id, RTT and outcome', async () => {
    const h = harness();
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 5);
    const probes = h.logs.filter((line) => line.message.startsWith('probe ')).map((line) => `${line.level} ${line.message}`);
    assert.deepEqual(probes, ['info probe a: ping id=1 ok in 5 ms']);
    const probeEvents = h.events.filter((event) => event.type === 'probe');
    assert.equal(probeEvents.length, 1);
    assert.ok(h.logs.some((line) => line.level === 'info' && line.message === 'a: starting -> up (connected (handshake 2025-11-25))'));
    await h.registry.dispose();
  });

  void it('builds no probe line for a logger that writes nothing at info (the CLI, the exporter, a ping log set to warn)', async () => {
    const redacted: string[] = [];
    const h = harness({
      logLevelEnabled: (level) => level === 'warn' || level === 'error',
      redact: (text) => {
        redacted.push(text);
        return text;
      },
    });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(3 * INTERVAL_MS + 20);
    assert.equal(h.events.filter((event) => event.type === 'probe').length, 3, 'every probe is still recorded and announced');
    assert.deepEqual(
      h.logs.filter((line) => line.message.startsWith('probe ')),
      [],
    );
    assert.deepEqual(
      redacted.filter((text) => text.startsWith('probe ')),
      [],
      'nor redacted for nobody',
    );
    await h.registry.dispose();
  });
});
