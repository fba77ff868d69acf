// The keepalive verdict, following protocol.md: what one probe's result means for a server, given what is remembered
// about it. Pure: no clock (the time comes in as a number), no timers, no I/O. The monitor sends the probes and
// carries the verdicts out (state change, teardown, reconnect); every rule here is tested on its own by a table.

import type { Era, ProbeMethod, ProbeOutcome, ProbeResult, ServerError, ServerState } from '../model';
import { describeWrongAnswer } from '../probeReply';

/** Cheap, answered by every server that lists tools; used for servers that do not answer the era's probe properly. */
export const FALLBACK_PROBE_METHOD: ProbeMethod = 'tools/list';
/** First probes timing out on this many fresh connections in a row suggests a server that ignores ping. */
export const IGNORED_PING_STREAK = 2;
/**
 * How long a non-conformant verdict (ping ignored or answered wrongly) stands before the era's probe is tried again:
 * a brief stall must not brand a server for the rest of the session, and one extra request per ten minutes is cheap.
 */
export const PING_RETEST_INTERVAL_MS = 10 * 60_000;

export type Violation = Extract<ProbeOutcome, 'error-reply' | 'non-empty'>;

/** What the verdicts remember about one server from probe to probe and across its reconnects. */
export interface ProbeMemory {
  /** The violation that caused the one reconnect; seeing it again on the fresh connection means non-conformant. */
  readonly pendingViolation: Violation | null;
  readonly nonConformantReason: string | null;
  /** When a non-conformant server's own probe is tried again (monotonic ms). */
  readonly pingRetestAt: number;
  readonly firstProbeTimeoutStreak: number;
  readonly ignoredPingChecked: boolean;
  /** Probes still to be answered in a row before a recovering server is shown up again. */
  readonly recoveringLeft: number;
  /** After a failed probe the fresh connection is checked at once rather than after a full idle interval. */
  readonly verifyOnConnect: boolean;
}

export const FRESH_MEMORY: ProbeMemory = {
  pendingViolation: null,
  nonConformantReason: null,
  pingRetestAt: 0,
  firstProbeTimeoutStreak: 0,
  ignoredPingChecked: false,
  recoveringLeft: 0,
  verifyOnConnect: false,
};

/** A reconnect the user asked for starts the verdicts over: whatever the server did before is given another chance. */
export function forgetVerdicts(memory: ProbeMemory): ProbeMemory {
  return { ...FRESH_MEMORY, pingRetestAt: memory.pingRetestAt, recoveringLeft: memory.recoveringLeft };
}

export function defaultProbeMethod(era: Era | null): ProbeMethod {
  return era === 'modern' ? 'server/discover' : 'ping';
}

/** A fallback probe proves the message loop runs whenever anything came back, even an error. */
export function answered(outcome: ProbeOutcome): boolean {
  return outcome === 'ok' || outcome === 'error-reply' || outcome === 'non-empty';
}

/**
 * Which probe a keepalive sends: the era's own, or the fallback on a non-conformant server, whose own probe is tried
 * again (`retest`) once PING_RETEST_INTERVAL_MS has passed.
 */
export type ProbeKind = 'default' | 'fallback' | 'retest';

export function nextProbe(memory: ProbeMemory, now: number): { readonly kind: ProbeKind; readonly memory: ProbeMemory } {
  if (memory.nonConformantReason === null) {
    return { kind: 'default', memory };
  }
  if (now >= memory.pingRetestAt) {
    return { kind: 'retest', memory: { ...memory, pingRetestAt: now + PING_RETEST_INTERVAL_MS } };
  }
  return { kind: 'fallback', memory };
}

/** One probe to judge, and which question it answered. */
export type JudgedProbe =
  | { readonly kind: 'default'; readonly result: ProbeResult; readonly firstOnConnection: boolean }
  | { readonly kind: 'fallback' | 'retest'; readonly result: ProbeResult }
  /** The fallback asked after the era's probe (`timedOut`) timed out on fresh connections again and again. */
  | { readonly kind: 'ignored-ping-check'; readonly result: ProbeResult; readonly timedOut: ProbeResult };

export interface JudgeFacts {
  readonly now: number;
  readonly timeoutMs: number;
  /** Probes answered in a row before a recovering server counts as up (successesBeforeUp, at least 1). */
  readonly recoveryThreshold: number;
}

/**
 * What the monitor does next. `up`, `recovering`, `alive-suspect` and an alive `non-conformant` reset the failure
 * count; the others count one failure, except the two that ask the fallback first. Only `reconnect-once`, `failed`
 * and `auth` drop the connection.
 */
export type ProbeVerdict =
  | { readonly kind: 'up'; readonly reason: string; readonly conformantAgain: boolean }
  | { readonly kind: 'recovering'; readonly answered: number; readonly needed: number; readonly conformantAgain: boolean }
  /** A non-conformant server answered its fallback: alive, still shown as suspect. */
  | { readonly kind: 'alive-suspect'; readonly reason: string }
  /** Stop restarting it and probe it with the fallback; `alive` when the fallback just answered. */
  | { readonly kind: 'non-conformant'; readonly reason: string; readonly error: ServerError; readonly alive: boolean }
  | { readonly kind: 'reconnect-once'; readonly message: string; readonly error: ServerError }
  | { readonly kind: 'failed'; readonly message: string; readonly error: ServerError }
  | { readonly kind: 'auth'; readonly message: string; readonly error: ServerError }
  /** The era's probe failed again on a non-conformant server: the fallback decides whether it is alive. */
  | { readonly kind: 'ask-fallback' }
  /** Ask the fallback before restarting a server whose fresh connections keep ignoring their first probe. */
  | { readonly kind: 'check-ignored-ping'; readonly streak: number };

export interface Judgement {
  readonly verdict: ProbeVerdict;
  readonly memory: ProbeMemory;
}

export function judgeProbe(probe: JudgedProbe, memory: ProbeMemory, facts: JudgeFacts): Judgement {
  switch (probe.kind) {
    case 'fallback':
      return afterFallback(probe.result, memory, facts);
    case 'ignored-ping-check':
      if (!answered(probe.result.outcome)) {
        return afterDefault(probe.timedOut, memory, facts, false);
      }
      return nonConformant(memory, facts, `ignores ${probe.timedOut.method}`, true, {
        kind: 'protocol-violation',
        message: `${probe.timedOut.method} is never answered, but ${FALLBACK_PROBE_METHOD} is: probing with ${FALLBACK_PROBE_METHOD}`,
      });
    case 'retest':
      // Answered properly: back to normal probing. Otherwise the verdict stands and the fallback decides.
      if (probe.result.outcome === 'ok') {
        return afterDefault(probe.result, { ...memory, nonConformantReason: null }, facts, true);
      }
      return { verdict: { kind: 'ask-fallback' }, memory };
    case 'default': {
      if (probe.result.outcome === 'timeout' && probe.firstOnConnection) {
        const streak = memory.firstProbeTimeoutStreak + 1;
        const next = { ...memory, firstProbeTimeoutStreak: streak };
        if (streak >= IGNORED_PING_STREAK && !memory.ignoredPingChecked) {
          return { verdict: { kind: 'check-ignored-ping', streak }, memory: { ...next, ignoredPingChecked: true } };
        }
        return afterDefault(probe.result, next, facts, false);
      }
      return afterDefault(probe.result, memory, facts, false);
    }
  }
}

function afterDefault(result: ProbeResult, memory: ProbeMemory, facts: JudgeFacts, conformantAgain: boolean): Judgement {
  switch (result.outcome) {
    case 'ok': {
      const cleared = { ...memory, firstProbeTimeoutStreak: 0, ignoredPingChecked: false, pendingViolation: null };
      if (memory.recoveringLeft > 1) {
        const recoveringLeft = memory.recoveringLeft - 1;
        const needed = facts.recoveryThreshold;
        return {
          verdict: { kind: 'recovering', answered: needed - recoveringLeft, needed, conformantAgain },
          memory: { ...cleared, recoveringLeft },
        };
      }
      return { verdict: { kind: 'up', reason: `${result.method} answered`, conformantAgain }, memory: { ...cleared, recoveringLeft: 0 } };
    }
    case 'error-reply':
    case 'non-empty':
      return violation(result.outcome, result, memory, facts);
    case 'auth':
      return auth(result, memory);
    case 'timeout':
      return failed(result, memory, facts, 'timeout');
    case 'closed':
    case 'failed':
      return failed(result, memory, facts, 'unreachable');
  }
}

function afterFallback(result: ProbeResult, memory: ProbeMemory, facts: JudgeFacts): Judgement {
  if (answered(result.outcome)) {
    const reason = `non-conformant (${memory.nonConformantReason ?? 'unknown'}); alive: ${result.method} answered`;
    return { verdict: { kind: 'alive-suspect', reason }, memory };
  }
  if (result.outcome === 'auth') {
    return auth(result, memory);
  }
  return failed(result, memory, facts, result.outcome === 'timeout' ? 'timeout' : 'unreachable');
}

function violation(seen: Violation, result: ProbeResult, memory: ProbeMemory, facts: JudgeFacts): Judgement {
  const message = describeWrongAnswer(result.method, seen, result.detail);
  const error: ServerError = { kind: 'protocol-violation', message };
  if (memory.pendingViolation === seen) {
    // The same answer from a fresh connection: a property of the server, not of a connection. Reconnecting again
    // would not help, so stop and watch it with a request it does answer.
    return nonConformant({ ...memory, pendingViolation: null }, facts, message, false, error);
  }
  return { verdict: { kind: 'reconnect-once', message, error }, memory: { ...memory, pendingViolation: seen, verifyOnConnect: true } };
}

function nonConformant(memory: ProbeMemory, facts: JudgeFacts, reason: string, alive: boolean, error: ServerError): Judgement {
  return {
    verdict: { kind: 'non-conformant', reason, error, alive },
    memory: { ...memory, nonConformantReason: reason, pingRetestAt: facts.now + PING_RETEST_INTERVAL_MS },
  };
}

/** A timed-out probe is never retried: a stalled message loop would hide behind the retry. The connection goes. */
function failed(result: ProbeResult, memory: ProbeMemory, facts: JudgeFacts, kind: 'timeout' | 'unreachable'): Judgement {
  const message =
    kind === 'timeout'
      ? `no answer to ${result.method} within ${facts.timeoutMs} ms`
      : `${result.method} failed: ${result.detail ?? result.outcome}`;
  return { verdict: { kind: 'failed', message, error: { kind, message, phase: 'probe' } }, memory: { ...memory, verifyOnConnect: true } };
}

function auth(result: ProbeResult, memory: ProbeMemory): Judgement {
  const message = `${result.method} was refused: credentials needed${result.detail ? ` (${result.detail})` : ''}`;
  return { verdict: { kind: 'auth', message, error: { kind: 'auth', message, phase: 'probe' } }, memory };
}

export interface ConnectedFacts {
  readonly era: Era;
  readonly protocolVersion: string | null;
  /** The last attempt or probe failed: a handshake alone proves nothing (a crash loop answers initialize every time). */
  readonly afterFailure: boolean;
  readonly recoveryThreshold: number;
}

export interface ConnectedVerdict {
  readonly state: ServerState;
  readonly reason: string;
  /** Probe at once instead of after a full idle interval. */
  readonly verifyNow: boolean;
  readonly memory: ProbeMemory;
}

/** What a fresh connection is shown as before its first probe, and whether that probe is due at once. */
export function judgeConnected(memory: ProbeMemory, facts: ConnectedFacts): ConnectedVerdict {
  const version = facts.protocolVersion ? ` ${facts.protocolVersion}` : '';
  const connected = `(${facts.era}${version})`;
  const next = { ...memory, verifyOnConnect: false };
  let state: ServerState;
  let reason: string;
  let recoveringLeft = memory.recoveringLeft;
  if (memory.pendingViolation) {
    state = 'suspect';
    reason = `reconnected ${connected}; re-checking after a protocol violation`;
  } else if (memory.nonConformantReason !== null) {
    state = 'suspect';
    reason = `connected ${connected}; non-conformant: ${memory.nonConformantReason}`;
  } else if (facts.afterFailure) {
    // With a recovery threshold above one, that many probes in a row must answer before it counts as up again.
    recoveringLeft = facts.recoveryThreshold;
    state = 'verifying';
    reason = `connected ${connected}; ${recoveringLeft > 1 ? `recovering: 0/${recoveringLeft} probes answered` : 'waiting for the first probe to answer'}`;
  } else {
    recoveringLeft = 0;
    state = 'up';
    reason = `connected ${connected}`;
  }
  return { state, reason, verifyNow: memory.verifyOnConnect || state === 'verifying', memory: { ...next, recoveringLeft } };
}

/**
 * Down, unless the failure threshold allows a server that was up a few failures before it is called down: it is
 * reconnected either way (a timed-out probe is never retried), only shown as reconnecting meanwhile. A reconnection
 * still verifying its first probe is part of that same stretch. `consecutiveFailures` includes this failure.
 */
export function failedState(
  current: ServerState,
  everEstablished: boolean,
  consecutiveFailures: number,
  failuresBeforeDown: number | undefined,
): ServerState {
  const threshold = Math.max(1, failuresBeforeDown ?? 1);
  const wasUp = current === 'up' || ((current === 'connecting' || current === 'verifying') && everEstablished);
  return wasUp && consecutiveFailures < threshold ? 'connecting' : 'down';
}

/** successesBeforeUp as a whole number of probes, at least one. */
export function recoveryThreshold(successesBeforeUp: number | undefined): number {
  return Math.max(1, Math.floor(successesBeforeUp ?? 1));
}

/**
 * A probe that got no answer in time on a connection that carries other traffic too (the guard's, where the client's
 * requests share the upstream). Other messages answered meanwhile mean the loop is alive but drops probes: restarting
 * such a server on every missed probe is the restart storm protocol.md warns about, so probing stops and the exit
 * watch remains. Silence all along means the loop is dead.
 */
export type UnansweredVerdict =
  { readonly kind: 'stop-probing'; readonly reason: string } | { readonly kind: 'dead'; readonly reason: string };

export function judgeUnanswered(method: ProbeMethod, timeoutMs: number, trafficSince: boolean): UnansweredVerdict {
  if (trafficSince) {
    return {
      kind: 'stop-probing',
      reason: `did not answer the keepalive ${method} within ${timeoutMs} ms while answering other messages; keepalive probes stopped`,
    };
  }
  return { kind: 'dead', reason: `did not answer a keepalive ${method} within ${timeoutMs} ms` };
}
