import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeResult, ServerState } from '../../../../src/core/model';
import { DAY_MS, HistoryRecorder, HOUR_MS, MINUTE_MS, type ServerIdentity } from '../../../../src/core/history';

const SERVER: ServerIdentity = { key: '/w/.vscode/mcp.json#alpha', name: 'alpha', file: '/w/.vscode/mcp.json' };
// A minute boundary, and an hour boundary, so the tables can say where the roll-ups split.
const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const OK: ProbeResult = { method: 'ping', outcome: 'ok', rttMs: 10 };
const TIMEOUT: ProbeResult = { method: 'ping', outcome: 'timeout' };

type Step = { at: number; state: ServerState; failures?: number } | { at: number; probe: ProbeResult } | { at: number; stop: true };

function run(steps: readonly Step[], until: number) {
  let now = T0;
  const recorder = new HistoryRecorder(() => now);
  let previous: ServerState = 'idle';
  for (const step of steps) {
    now = T0 + step.at;
    if ('state' in step) {
      recorder.state(SERVER, step.state, step.failures ?? 0, step.state !== previous);
      previous = step.state;
    } else if ('probe' in step) recorder.probe(SERVER, step.probe);
    else recorder.stop(SERVER.key);
  }
  now = T0 + until;
  return {
    recorder,
    uptime: recorder.uptime(SERVER.key),
    setNow: (at: number) => {
      now = T0 + at;
    },
  };
}

const minutes = (n: number) => n * MINUTE_MS;

void describe('history recorder: uptime from verified time only', () => {
  const cases: ReadonlyArray<{ name: string; steps: Step[]; until: number; hour: number | null }> = [
    {
      name: 'up and proven by a probe for the whole hour is 100 %',
      steps: [
        { at: 0, state: 'connecting' },
        { at: 0, state: 'up' },
        { at: minutes(1), probe: OK },
      ],
      until: minutes(60),
      hour: 100,
    },
    {
      name: 'up by handshake only (no probe answered yet) is not counted at all',
      steps: [
        { at: 0, state: 'connecting' },
        { at: 0, state: 'up' },
      ],
      until: minutes(30),
      hour: null,
    },
    {
      name: 'an unproven up stretch that ends in a failure counts as down',
      steps: [
        { at: 0, state: 'up' },
        { at: minutes(10), state: 'down', failures: 1 },
      ],
      until: minutes(20),
      hour: 0,
    },
    {
      name: 'reconnecting and verifying after a failure are not up',
      steps: [
        { at: 0, state: 'up' },
        { at: 0, probe: OK },
        { at: minutes(30), probe: TIMEOUT },
        { at: minutes(30), state: 'connecting', failures: 1 },
        { at: minutes(40), state: 'verifying', failures: 1 },
        { at: minutes(45), probe: OK },
        { at: minutes(45), state: 'up' },
      ],
      // 30 up + 15 not up (connecting 10, verifying 5) + 15 up after the probe proved it = 45 / 60.
      until: minutes(60),
      hour: 75,
    },
    {
      name: 'the first connect of a fresh start is neither up nor down',
      steps: [
        { at: 0, state: 'connecting' },
        { at: minutes(20), state: 'up' },
        { at: minutes(20), probe: OK },
      ],
      until: minutes(40),
      hour: 100,
    },
    {
      name: 'time in disabled, untrusted or waiting for consent is left out of the denominator',
      steps: [
        { at: 0, state: 'up' },
        { at: 0, probe: OK },
        { at: minutes(10), state: 'disabled' },
        { at: minutes(50), state: 'down', failures: 1 },
      ],
      // 10 up, 40 disabled (excluded), 10 down.
      until: minutes(60),
      hour: 50,
    },
    {
      name: 'suspect and auth-required are not up',
      steps: [
        { at: 0, state: 'suspect' },
        { at: minutes(20), state: 'auth-required' },
      ],
      until: minutes(40),
      hour: 0,
    },
    {
      name: 'a server removed from its file stops accruing',
      steps: [
        { at: 0, state: 'down', failures: 1 },
        { at: minutes(10), state: 'up' },
        { at: minutes(10), probe: OK },
        { at: minutes(20), stop: true },
      ],
      until: minutes(60),
      hour: 50,
    },
  ];
  for (const c of cases) {
    void it(c.name, () => {
      assert.equal(run(c.steps, c.until).uptime.hour, c.hour);
    });
  }

  void it('a gap nobody observed (editor closed) is neither up nor down: after a reload only observed time counts', () => {
    let now = T0;
    const before = new HistoryRecorder(() => now);
    before.state(SERVER, 'up', 0, true);
    before.probe(SERVER, OK);
    now = T0 + minutes(10);
    before.settle();
    // The window closes here; the next one opens 40 minutes later and finds the server down for 10 minutes.
    now = T0 + minutes(50);
    const after = new HistoryRecorder(() => now);
    after.load(before.servers(), before.minuteFrom);
    after.state(SERVER, 'down', 1, true);
    now = T0 + minutes(60);
    assert.equal(after.uptime(SERVER.key).hour, 50);
  });
});

void describe('history recorder: roll-up boundaries', () => {
  void it('splits a stretch at minute and hour boundaries, each bucket holding only its share', () => {
    // Up from 12:59:30 to 13:01:15 (verified at the start).
    const { recorder } = run(
      [
        { at: minutes(59) + 30_000, state: 'up' },
        { at: minutes(59) + 30_000, probe: OK },
      ],
      minutes(61) + 15_000,
    );
    const [server] = recorder.servers();
    assert.ok(server);
    const minute = (at: number) => server.minutes.get(T0 + at)?.upMs;
    assert.deepEqual([minute(minutes(59)), minute(minutes(60)), minute(minutes(61))], [30_000, 60_000, 15_000]);
    assert.deepEqual([server.hours.get(T0)?.upMs, server.hours.get(T0 + HOUR_MS)?.upMs], [30_000, 75_000]);
  });

  void it('counts probes, RTT sum/min/max and state changes in the minute and the hour they happened', () => {
    const { recorder } = run(
      [
        { at: 1_000, state: 'up' },
        { at: 2_000, probe: { method: 'ping', outcome: 'ok', rttMs: 4 } },
        { at: 3_000, probe: { method: 'ping', outcome: 'ok', rttMs: 12 } },
        { at: minutes(1) + 1, probe: TIMEOUT },
        { at: minutes(1) + 2, state: 'down', failures: 1 },
      ],
      minutes(2),
    );
    const [server] = recorder.servers();
    assert.ok(server);
    const first = server.minutes.get(T0);
    assert.deepEqual(
      [first?.probesOk, first?.probesFailed, first?.rttSum, first?.rttMin, first?.rttMax, first?.stateChanges],
      [2, 0, 16, 4, 12, 1],
    );
    const second = server.minutes.get(T0 + minutes(1));
    assert.deepEqual([second?.probesOk, second?.probesFailed, second?.stateChanges], [0, 1, 1]);
    const hour = server.hours.get(T0);
    assert.deepEqual([hour?.probesOk, hour?.probesFailed, hour?.rttMin, hour?.rttMax, hour?.stateChanges], [2, 1, 4, 12, 2]);
  });

  void it('24 h and 7 d windows read minutes within 24 h and hourly buckets before that', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.state(SERVER, 'up', 0, true);
    recorder.probe(SERVER, OK);
    // Up for 3 days, then down for the last 2 hours, settled every half hour like the file writer does.
    for (let t = 0; t < 3 * DAY_MS; t += 30 * MINUTE_MS) {
      now = T0 + t;
      recorder.settle();
    }
    now = T0 + 3 * DAY_MS;
    recorder.state(SERVER, 'down', 1, true);
    now = T0 + 3 * DAY_MS + 2 * HOUR_MS;
    const uptime = recorder.uptime(SERVER.key);
    assert.equal(uptime.hour, 0);
    assert.equal(uptime.day, (22 / 24) * 100);
    assert.equal(uptime.week, (72 / 74) * 100);
  });
});

void describe('history recorder: pruning', () => {
  const cases: ReadonlyArray<{ name: string; age: number; minuteKept: boolean; hourKept: boolean }> = [
    { name: 'a minute 23 h old is kept', age: 23 * HOUR_MS, minuteKept: true, hourKept: true },
    {
      name: 'a minute 24 h 15 min old is kept with the rest of its hour',
      age: 24 * HOUR_MS + 15 * MINUTE_MS,
      minuteKept: true,
      hourKept: true,
    },
    { name: 'a minute 25 h 1 min old is gone, its hour stays', age: 25 * HOUR_MS + MINUTE_MS, minuteKept: false, hourKept: true },
    { name: 'an hour 29 days old is kept', age: 29 * DAY_MS, minuteKept: false, hourKept: true },
    { name: 'an hour 30 days and an hour old is gone', age: 30 * DAY_MS + HOUR_MS, minuteKept: false, hourKept: false },
  ];
  for (const c of cases) {
    void it(c.name, () => {
      let now = T0 + 30 * MINUTE_MS; // half past, so "kept to the hour" is visible
      const recorder = new HistoryRecorder(() => now);
      const probeAt = now;
      recorder.probe(SERVER, OK);
      recorder.state(SERVER, 'disabled', 0, true);
      now = probeAt + c.age;
      recorder.prune();
      const server = recorder.servers().find((s) => s.key === SERVER.key);
      assert.equal(server?.minutes.has(Math.floor(probeAt / MINUTE_MS) * MINUTE_MS) ?? false, c.minuteKept);
      assert.equal(server?.hours.has(Math.floor(probeAt / HOUR_MS) * HOUR_MS) ?? false, c.hourKept);
    });
  }

  void it('a server with nothing left and nothing under way is forgotten', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.probe(SERVER, OK);
    now = T0 + 31 * DAY_MS;
    recorder.prune();
    assert.equal(recorder.servers().length, 0);
  });

  void it('walks only retained time: a stretch open for 40 days allocates at most 30 days of hours and a day of minutes', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.state(SERVER, 'down', 1, true);
    now = T0 + 40 * DAY_MS;
    recorder.settle();
    const [server] = recorder.servers();
    assert.ok(server);
    assert.ok(server.hours.size <= 30 * 24 + 1, `hours: ${server.hours.size}`);
    assert.ok(server.minutes.size <= 25 * 60, `minutes: ${server.minutes.size}`);
    assert.equal(recorder.uptime(SERVER.key).week, 0);
  });

  void it('clear forgets every bucket; a stretch under way starts again from now', () => {
    const { recorder, setNow } = run([{ at: 0, state: 'down', failures: 1 }], minutes(30));
    recorder.clear();
    assert.equal(recorder.servers()[0]?.minutes.size, 0);
    setNow(minutes(40));
    recorder.settle();
    assert.equal(
      [...(recorder.servers()[0]?.minutes.values() ?? [])].reduce((sum, b) => sum + b.downMs, 0),
      minutes(10),
    );
  });
});
