import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HistoryRecorder, MINUTE_MS, recordHistory, type ServerIdentity } from '../../../../src/core/history';
import type { MonitorEvent } from '../../../../src/core/monitorTypes';
import type { ServerStatus } from '../../../../src/core/model';

const SERVER: ServerIdentity = { key: '/w/.vscode/mcp.json#alpha', name: 'alpha', file: '/w/.vscode/mcp.json' };
const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const minutes = (n: number) => n * MINUTE_MS;

function totals(recorder: HistoryRecorder): { up: number; down: number } {
  let up = 0;
  let down = 0;
  for (const server of recorder.servers())
    for (const bucket of server.minutes.values()) {
      up += bucket.upMs;
      down += bucket.downMs;
    }
  return { up, down };
}

void describe('history across a sleep', () => {
  void it('counts the slept time neither up nor down, for an up and a down stretch alike', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.state(SERVER, 'up', 0, true);
    recorder.probe(SERVER, { method: 'ping', outcome: 'ok', rttMs: 3 });
    now = T0 + minutes(5);
    recorder.unobserved(T0 + minutes(5), T0 + minutes(45));
    now = T0 + minutes(46);
    recorder.state(SERVER, 'down', 1, true);
    now = T0 + minutes(50);
    recorder.settle();
    assert.deepEqual(totals(recorder), { up: minutes(6), down: minutes(4) });
    // A down stretch is cut the same way.
    recorder.unobserved(T0 + minutes(50), T0 + minutes(70));
    now = T0 + minutes(71);
    recorder.settle();
    assert.deepEqual(totals(recorder), { up: minutes(6), down: minutes(5) });
    assert.equal(recorder.uptime(SERVER.key).hour, (1 / 6) * 100, 'the last hour: 1 min up, 5 down, the rest slept or before it');
  });

  void it('takes the gap back out when a settle (a file write, a view) ran after the sleep but before the wake', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.state(SERVER, 'up', 0, true);
    recorder.probe(SERVER, { method: 'ping', outcome: 'ok', rttMs: 3 });
    now = T0 + minutes(3);
    recorder.settle();
    // Asleep from 4 to 40 min; the history appender's late timer settles at 40 min, then the wake is told.
    now = T0 + minutes(40);
    recorder.settle();
    assert.deepEqual(totals(recorder), { up: minutes(40), down: 0 }, 'before the wake is told, the gap reads as up');
    recorder.unobserved(T0 + minutes(4), T0 + minutes(40));
    now = T0 + minutes(42);
    recorder.settle();
    assert.deepEqual(totals(recorder), { up: minutes(6), down: 0 });
    for (const server of recorder.servers())
      for (const bucket of [...server.minutes.values(), ...server.hours.values()]) assert.ok(bucket.upMs >= 0);
  });

  void it('takes the gap back out of a stretch a state change ended after the sleep but before the wake', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.state(SERVER, 'up', 0, true);
    recorder.probe(SERVER, { method: 'ping', outcome: 'ok', rttMs: 3 });
    // Asleep from 2 to 30 min; the connection that closed meanwhile is handled at 30 min, before the wake.
    now = T0 + minutes(30);
    recorder.state(SERVER, 'down', 1, true);
    recorder.unobserved(T0 + minutes(2), T0 + minutes(30));
    now = T0 + minutes(31);
    recorder.settle();
    assert.deepEqual(totals(recorder), { up: minutes(2), down: minutes(1) });
  });

  void it("is fed the gap by the registry's wake event", () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    const listeners: ((event: MonitorEvent) => void)[] = [];
    const status = {
      config: { id: SERVER.key, name: SERVER.name, source: { file: SERVER.file } },
      state: 'down',
      consecutiveFailures: 1,
    } as unknown as ServerStatus;
    recordHistory(
      {
        list: () => [status],
        onEvent: (listener) => {
          listeners.push(listener);
          return () => undefined;
        },
      },
      recorder,
    );
    now = T0 + minutes(2);
    const suspension = {
      sleptMs: minutes(30),
      wallFrom: T0 + minutes(2),
      wallTo: T0 + minutes(32),
      monotonicFrom: 0,
      monotonicTo: 0,
      detectedBy: 'clock-jump',
    } as const;
    for (const listener of listeners) listener({ type: 'wake', suspension });
    now = T0 + minutes(33);
    recorder.settle();
    assert.deepEqual(totals(recorder), { up: 0, down: minutes(3) });
  });
});
