// The probe verdicts alone: no monitor, no clock, no connection. Each row is (probe, memory) -> (verdict, memory).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeOutcome, ProbeResult, ServerState } from '../../../../src/core/model';
import {
  failedState,
  FALLBACK_PROBE_METHOD,
  forgetVerdicts,
  FRESH_MEMORY,
  judgeConnected,
  judgeProbe,
  judgeUnanswered,
  nextProbe,
  PING_RETEST_INTERVAL_MS,
  recoveryThreshold,
  type ConnectedFacts,
  type JudgedProbe,
  type ProbeMemory,
  type ProbeVerdict,
} from '../../../../src/core/monitor/probePolicy';

const facts = { now: 50_000, timeoutMs: 2_000, recoveryThreshold: 1 };
const ping = (outcome: ProbeOutcome, detail?: string): ProbeResult => ({ method: 'ping', outcome, ...(detail ? { detail } : {}) });
const fallback = (outcome: ProbeOutcome): ProbeResult => ({ method: FALLBACK_PROBE_METHOD, outcome });
const nonConformant: ProbeMemory = { ...FRESH_MEMORY, nonConformantReason: 'ignores ping', pingRetestAt: 80_000 };

interface Row {
  readonly name: string;
  readonly probe: JudgedProbe;
  readonly memory?: ProbeMemory;
  readonly recoveryThreshold?: number;
  readonly verdict: Partial<ProbeVerdict> & { kind: ProbeVerdict['kind'] };
  readonly after?: Partial<ProbeMemory>;
}

const rows: Row[] = [
  {
    name: 'an answered ping is up',
    probe: { kind: 'default', result: ping('ok'), firstOnConnection: false },
    verdict: { kind: 'up', reason: 'ping answered', conformantAgain: false },
  },
  {
    name: 'an answered ping clears the streaks and a pending violation',
    probe: { kind: 'default', result: ping('ok'), firstOnConnection: true },
    memory: { ...FRESH_MEMORY, firstProbeTimeoutStreak: 1, ignoredPingChecked: true, pendingViolation: 'non-empty' },
    verdict: { kind: 'up' },
    after: { firstProbeTimeoutStreak: 0, ignoredPingChecked: false, pendingViolation: null },
  },
  {
    name: 'a recovering server needs the threshold of answers in a row',
    probe: { kind: 'default', result: ping('ok'), firstOnConnection: false },
    memory: { ...FRESH_MEMORY, recoveringLeft: 3 },
    recoveryThreshold: 3,
    verdict: { kind: 'recovering', answered: 1, needed: 3 },
    after: { recoveringLeft: 2 },
  },
  {
    name: 'the last answer of a recovery is up',
    probe: { kind: 'default', result: ping('ok'), firstOnConnection: false },
    memory: { ...FRESH_MEMORY, recoveringLeft: 1 },
    recoveryThreshold: 3,
    verdict: { kind: 'up' },
    after: { recoveringLeft: 0 },
  },
  {
    name: 'a timed-out probe fails the connection and verifies the next one at once',
    probe: { kind: 'default', result: ping('timeout'), firstOnConnection: false },
    verdict: {
      kind: 'failed',
      message: 'no answer to ping within 2000 ms',
      error: { kind: 'timeout', message: 'no answer to ping within 2000 ms', phase: 'probe' },
    },
    after: { verifyOnConnect: true, firstProbeTimeoutStreak: 0 },
  },
  {
    name: 'a closed connection is unreachable',
    probe: { kind: 'default', result: ping('closed', 'stream ended'), firstOnConnection: false },
    verdict: {
      kind: 'failed',
      message: 'ping failed: stream ended',
      error: { kind: 'unreachable', message: 'ping failed: stream ended', phase: 'probe' },
    },
    after: { verifyOnConnect: true },
  },
  {
    name: 'refused credentials',
    probe: { kind: 'default', result: ping('auth', 'HTTP 401'), firstOnConnection: false },
    verdict: { kind: 'auth', message: 'ping was refused: credentials needed (HTTP 401)' },
    after: { verifyOnConnect: false },
  },
  {
    name: 'a first violation reconnects once',
    probe: { kind: 'default', result: ping('non-empty', '{"x":1}'), firstOnConnection: false },
    verdict: { kind: 'reconnect-once', message: 'ping answered with a non-empty result: {"x":1}' },
    after: { pendingViolation: 'non-empty', verifyOnConnect: true },
  },
  {
    name: 'the same violation after the reconnect makes the server non-conformant, not alive',
    probe: { kind: 'default', result: ping('error-reply'), firstOnConnection: true },
    memory: { ...FRESH_MEMORY, pendingViolation: 'error-reply' },
    verdict: { kind: 'non-conformant', reason: 'ping answered with a JSON-RPC error', alive: false },
    after: {
      pendingViolation: null,
      nonConformantReason: 'ping answered with a JSON-RPC error',
      pingRetestAt: 50_000 + PING_RETEST_INTERVAL_MS,
    },
  },
  {
    name: 'another violation than the pending one reconnects once more',
    probe: { kind: 'default', result: ping('error-reply'), firstOnConnection: false },
    memory: { ...FRESH_MEMORY, pendingViolation: 'non-empty' },
    verdict: { kind: 'reconnect-once' },
    after: { pendingViolation: 'error-reply', verifyOnConnect: true },
  },
  {
    name: 'a first probe timing out on one fresh connection is a plain failure',
    probe: { kind: 'default', result: ping('timeout'), firstOnConnection: true },
    verdict: { kind: 'failed' },
    after: { firstProbeTimeoutStreak: 1, ignoredPingChecked: false, verifyOnConnect: true },
  },
  {
    name: 'on the second fresh connection in a row the fallback is asked first',
    probe: { kind: 'default', result: ping('timeout'), firstOnConnection: true },
    memory: { ...FRESH_MEMORY, firstProbeTimeoutStreak: 1 },
    verdict: { kind: 'check-ignored-ping', streak: 2 },
    after: { firstProbeTimeoutStreak: 2, ignoredPingChecked: true },
  },
  {
    name: 'the fallback is asked only once per streak',
    probe: { kind: 'default', result: ping('timeout'), firstOnConnection: true },
    memory: { ...FRESH_MEMORY, firstProbeTimeoutStreak: 2, ignoredPingChecked: true },
    verdict: { kind: 'failed' },
    after: { firstProbeTimeoutStreak: 3, verifyOnConnect: true },
  },
  {
    name: 'a later probe timing out does not count toward the streak',
    probe: { kind: 'default', result: ping('timeout'), firstOnConnection: false },
    memory: { ...FRESH_MEMORY, firstProbeTimeoutStreak: 1 },
    verdict: { kind: 'failed' },
    after: { firstProbeTimeoutStreak: 1, verifyOnConnect: true },
  },
  {
    name: 'the fallback answers where ping never did: non-conformant and alive',
    probe: { kind: 'ignored-ping-check', result: fallback('ok'), timedOut: ping('timeout') },
    memory: { ...FRESH_MEMORY, firstProbeTimeoutStreak: 2, ignoredPingChecked: true },
    verdict: { kind: 'non-conformant', reason: 'ignores ping', alive: true },
    after: { nonConformantReason: 'ignores ping', pingRetestAt: 50_000 + PING_RETEST_INTERVAL_MS },
  },
  {
    name: 'the fallback unanswered too: the ping timeout stands',
    probe: { kind: 'ignored-ping-check', result: fallback('timeout'), timedOut: ping('timeout') },
    verdict: { kind: 'failed', message: 'no answer to ping within 2000 ms' },
    after: { verifyOnConnect: true },
  },
  {
    name: 'a non-conformant server answering its fallback is alive',
    probe: { kind: 'fallback', result: fallback('ok') },
    memory: nonConformant,
    verdict: { kind: 'alive-suspect', reason: `non-conformant (ignores ping); alive: ${FALLBACK_PROBE_METHOD} answered` },
  },
  {
    name: 'an error reply to the fallback still proves it alive',
    probe: { kind: 'fallback', result: fallback('error-reply') },
    memory: nonConformant,
    verdict: { kind: 'alive-suspect' },
  },
  {
    name: 'an unanswered fallback fails',
    probe: { kind: 'fallback', result: fallback('timeout') },
    memory: nonConformant,
    verdict: {
      kind: 'failed',
      error: { kind: 'timeout', message: `no answer to ${FALLBACK_PROBE_METHOD} within 2000 ms`, phase: 'probe' },
    },
    after: { verifyOnConnect: true },
  },
  {
    name: 'a refused fallback asks for credentials',
    probe: { kind: 'fallback', result: fallback('auth') },
    memory: nonConformant,
    verdict: { kind: 'auth' },
  },
  {
    name: 'a retest answered properly ends the verdict',
    probe: { kind: 'retest', result: ping('ok') },
    memory: nonConformant,
    verdict: { kind: 'up', conformantAgain: true },
    after: { nonConformantReason: null },
  },
  {
    name: 'a retest not answered properly asks the fallback',
    probe: { kind: 'retest', result: ping('timeout') },
    memory: nonConformant,
    verdict: { kind: 'ask-fallback' },
    after: { nonConformantReason: 'ignores ping' },
  },
];

void describe('probe policy: judging a probe', () => {
  for (const row of rows) {
    void it(row.name, () => {
      const memory = row.memory ?? FRESH_MEMORY;
      const { verdict, memory: after } = judgeProbe(row.probe, memory, {
        ...facts,
        recoveryThreshold: row.recoveryThreshold ?? facts.recoveryThreshold,
      });
      assert.deepEqual(pick(verdict, Object.keys(row.verdict)), row.verdict);
      assert.deepEqual(after, { ...memory, ...row.after });
    });
  }

  void it('leaves the memory it was given as it was', () => {
    const memory = { ...FRESH_MEMORY, firstProbeTimeoutStreak: 1 };
    const frozen = Object.freeze({ ...memory });
    judgeProbe({ kind: 'default', result: ping('timeout'), firstOnConnection: true }, frozen, facts);
    assert.deepEqual(frozen, memory);
  });
});

void describe('probe policy: which probe to send', () => {
  const table: readonly [string, ProbeMemory, number, string, Partial<ProbeMemory>][] = [
    ['a conformant server gets its era probe', FRESH_MEMORY, 0, 'default', {}],
    ['a non-conformant server gets the fallback', nonConformant, 79_999, 'fallback', {}],
    [
      'its own probe is tried again once the retest is due',
      nonConformant,
      80_000,
      'retest',
      { pingRetestAt: 80_000 + PING_RETEST_INTERVAL_MS },
    ],
  ];
  for (const [name, memory, now, kind, after] of table) {
    void it(name, () => {
      const next = nextProbe(memory, now);
      assert.equal(next.kind, kind);
      assert.deepEqual(next.memory, { ...memory, ...after });
    });
  }
});

void describe('probe policy: a fresh connection', () => {
  const base: ConnectedFacts = { era: 'handshake', protocolVersion: '2025-06-18', afterFailure: false, recoveryThreshold: 1 };
  const table: readonly [string, ProbeMemory, Partial<ConnectedFacts>, ServerState, string, boolean, number][] = [
    ['first connect: up, probed after the interval', FRESH_MEMORY, {}, 'up', 'connected (handshake 2025-06-18)', false, 0],
    [
      'after a failure: verifying, probed at once',
      FRESH_MEMORY,
      { afterFailure: true },
      'verifying',
      'connected (handshake 2025-06-18); waiting for the first probe to answer',
      true,
      1,
    ],
    [
      'after a failure with a threshold of 3',
      FRESH_MEMORY,
      { afterFailure: true, recoveryThreshold: 3 },
      'verifying',
      'connected (handshake 2025-06-18); recovering: 0/3 probes answered',
      true,
      3,
    ],
    [
      'after a probe failure the reconnect is verified at once even when up',
      { ...FRESH_MEMORY, verifyOnConnect: true },
      { protocolVersion: null },
      'up',
      'connected (handshake)',
      true,
      0,
    ],
    [
      'after one violation: suspect until re-checked',
      { ...FRESH_MEMORY, pendingViolation: 'non-empty', verifyOnConnect: true, recoveringLeft: 2 },
      { afterFailure: true },
      'suspect',
      'reconnected (handshake 2025-06-18); re-checking after a protocol violation',
      true,
      2,
    ],
    [
      'non-conformant: suspect, probed after the interval',
      nonConformant,
      { afterFailure: true },
      'suspect',
      'connected (handshake 2025-06-18); non-conformant: ignores ping',
      false,
      0,
    ],
  ];
  for (const [name, memory, overrides, state, reason, verifyNow, recoveringLeft] of table) {
    void it(name, () => {
      const verdict = judgeConnected(memory, { ...base, ...overrides });
      assert.deepEqual({ state: verdict.state, reason: verdict.reason, verifyNow: verdict.verifyNow }, { state, reason, verifyNow });
      assert.deepEqual(verdict.memory, { ...memory, verifyOnConnect: false, recoveringLeft });
    });
  }
});

void describe('probe policy: the state a failure leads to', () => {
  const table: readonly [ServerState, boolean, number, number | undefined, ServerState][] = [
    ['up', true, 1, undefined, 'down'],
    ['up', true, 1, 3, 'connecting'],
    ['up', true, 3, 3, 'down'],
    ['verifying', true, 2, 3, 'connecting'],
    ['verifying', false, 1, 3, 'down'],
    ['connecting', true, 1, 3, 'connecting'],
    ['suspect', true, 1, 3, 'down'],
    ['down', true, 1, 3, 'down'],
    ['up', true, 1, 0, 'down'],
  ];
  for (const [current, everEstablished, failures, threshold, expected] of table) {
    void it(`${current}, ${everEstablished ? 'once connected' : 'never connected'}, failure ${failures} of ${threshold ?? 'default'} -> ${expected}`, () => {
      assert.equal(failedState(current, everEstablished, failures, threshold), expected);
    });
  }

  void it('counts recovery in whole probes, at least one', () => {
    assert.deepEqual([undefined, 0, 1, 2.7, 5].map(recoveryThreshold), [1, 1, 1, 2, 5]);
  });
});

void describe('probe policy: a reconnect the user asks for', () => {
  void it('forgets the verdicts but not the retest time or a recovery under way', () => {
    const memory: ProbeMemory = {
      pendingViolation: 'non-empty',
      nonConformantReason: 'ignores ping',
      pingRetestAt: 9,
      firstProbeTimeoutStreak: 4,
      ignoredPingChecked: true,
      recoveringLeft: 2,
      verifyOnConnect: true,
    };
    assert.deepEqual(forgetVerdicts(memory), { ...FRESH_MEMORY, pingRetestAt: 9, recoveringLeft: 2 });
  });
});

function pick(value: object, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, (value as Record<string, unknown>)[key]]));
}

// The guard's rule: its upstream carries the client's requests beside the probes.
void describe('probe policy: a probe unanswered on a connection that carries other traffic', () => {
  void it('other messages answered meanwhile: alive but dropping probes, so probing stops (no restart storm)', () => {
    assert.deepEqual(judgeUnanswered('ping', 5_000, true), {
      kind: 'stop-probing',
      reason: 'did not answer the keepalive ping within 5000 ms while answering other messages; keepalive probes stopped',
    });
  });

  void it('silence all along: the loop is dead', () => {
    assert.deepEqual(judgeUnanswered('server/discover', 5_000, false), {
      kind: 'dead',
      reason: 'did not answer a keepalive server/discover within 5000 ms',
    });
  });
});
