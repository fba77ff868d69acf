// Assertions shared by the fault matrix rows: the reactions protocol.md requires, stated once.

import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { ErrorKind, ProbeOutcome, ServerStatus } from '../../../src/core/model';
import type { MonitorSettings } from '../../../src/core/monitorTypes';
import { FAST_SETTINGS, stormCheck, type Observed, type Transition } from './harness';

/** Generous: a cold node child on a shared 2-core machine may take seconds to answer initialize. */
export const SETTLE_MS = 25_000;

export function describeObservation(observed: Observed): string {
  const status = observed.status();
  const lines = observed.transitions.map(
    (t) =>
      `  +${Math.round(t.at - observed.startedAt)} ms ${t.from} -> ${t.to} (${t.reason.slice(0, 160)})${t.error ? ` [${t.error.kind}]` : ''}`,
  );
  const probes = observed.connector.connections.map(
    (c, i) => `  connection ${i}: ${c.probes.map((p) => `${p.method}:${p.outcome}`).join(' ') || '-'}`,
  );
  return [
    `state ${status.state}, lastError ${JSON.stringify(status.lastError)?.slice(0, 300)}`,
    `connect attempts ${observed.connector.attempts.length}`,
    ...lines,
    ...probes,
  ].join('\n');
}

/** Waits for `condition`, failing with the whole observation when it never holds. */
export async function settle(
  observed: Observed,
  what: string,
  condition: (status: ServerStatus, transitions: readonly Transition[]) => boolean,
  timeoutMs = SETTLE_MS,
): Promise<void> {
  const held = await observed.until(condition, timeoutMs);
  assert.ok(held, `${what} did not happen within ${timeoutMs} ms:\n${describeObservation(observed)}`);
}

export function wentTo(transitions: readonly Transition[], state: ServerStatus['state'], kind?: ErrorKind): boolean {
  return transitions.some((t) => t.to === state && (kind === undefined || t.error?.kind === kind));
}

export function okProbes(observed: Observed, method?: string): number {
  return observed.connector.connections
    .flatMap((c) => c.probes)
    .filter((p) => p.outcome === 'ok' && (method === undefined || p.method === method)).length;
}

const ANSWERED: readonly ProbeOutcome[] = ['ok', 'error-reply', 'non-empty'];

/**
 * A timed-out probe is never retried on the same connection. The one request allowed after a timed-out ping is the
 * single tools/list that tells a server ignoring ping from a dead one; nothing may follow a timed-out tools/list.
 */
export function assertNoProbeRetry(observed: Observed): void {
  observed.connector.connections.forEach((connection, index) => {
    const timedOut = connection.probes.findIndex((p) => p.outcome === 'timeout');
    if (timedOut < 0) return;
    const after = connection.probes.slice(timedOut + 1);
    const detail = `connection ${index} probed again after a timeout:\n${describeObservation(observed)}`;
    if (connection.probes[timedOut].method === 'tools/list') {
      assert.equal(after.length, 0, detail);
      return;
    }
    if (after.length === 0) return;
    assert.equal(after[0].method, 'tools/list', detail);
    // Answered: the server is alive but ignores ping, and from then on this connection is probed with tools/list only.
    if (ANSWERED.includes(after[0].outcome)) {
      assert.ok(
        after.every((p) => p.method === 'tools/list'),
        detail,
      );
      assertNoProbeRetryAfter(after.slice(1), detail);
    } else {
      assert.equal(after.length, 1, detail);
    }
  });
}

function assertNoProbeRetryAfter(probes: readonly { outcome: ProbeOutcome }[], detail: string): void {
  const timedOut = probes.findIndex((p) => p.outcome === 'timeout');
  assert.ok(timedOut < 0 || timedOut === probes.length - 1, detail);
}

/** Connect attempts over the whole observation stay within what the backoff bounds allow; the figures go to the log. */
export function assertNoStorm(t: TestContext, observed: Observed, settings: MonitorSettings = FAST_SETTINGS): void {
  const now = performance.now();
  const figures = stormCheck(observed, observed.startedAt, now, settings);
  t.diagnostic(
    `reconnects: ${figures.attempts} connect attempts in ${Math.round(now - observed.startedAt)} ms = ${figures.perMinute.toFixed(1)}/min ` +
      `(backoff bound ${figures.bound} = ${figures.boundPerMinute.toFixed(1)}/min)`,
  );
  assert.ok(
    figures.attempts <= figures.bound,
    `reconnect storm: ${figures.attempts} attempts > bound ${figures.bound}\n${describeObservation(observed)}`,
  );
}

/** Credentials do not appear by themselves: after the first refusal, retries come at most once per backoff ceiling. */
export function assertAuthRetryPace(t: TestContext, observed: Observed, settings: MonitorSettings = FAST_SETTINGS): void {
  const windowMs = performance.now() - observed.startedAt;
  const attempts = observed.connector.attempts.length;
  // +1 for the first attempt, +1 slack for an attempt that fired just as the window closed.
  const bound = 2 + Math.floor(windowMs / settings.backoff.maxMs);
  t.diagnostic(`auth retries: ${attempts} attempts in ${Math.round(windowMs)} ms (bound ${bound}, one per ${settings.backoff.maxMs} ms)`);
  assert.ok(attempts <= bound, `auth retried too often: ${attempts} > ${bound}\n${describeObservation(observed)}`);
}

/** Observes a little longer and asserts nothing reconnected meanwhile: the reaction has come to rest. */
export async function assertStaysPut(observed: Observed, quietMs: number): Promise<void> {
  const before = observed.connector.attempts.length;
  await new Promise((resolve) => setTimeout(resolve, quietMs));
  assert.equal(
    observed.connector.attempts.length,
    before,
    `reconnected although the reaction should have come to rest:\n${describeObservation(observed)}`,
  );
}

export function assertRow(condition: boolean, message: string, observed: Observed): void {
  assert.ok(condition, `${message}\n${describeObservation(observed)}`);
}

// Row checks that read the same on every transport: the stdio, HTTP and SSE rows of one fault call these.

export async function hangAfterConnectRow(observed: Observed, t: TestContext): Promise<void> {
  await settle(
    observed,
    'two timed-out connections',
    () => observed.connector.connections.filter((c) => c.probes.some((p) => p.outcome === 'timeout')).length >= 2,
  );
  assertRow(wentTo(observed.transitions, 'down', 'timeout'), 'down with a timeout', observed);
  assertNoProbeRetry(observed);
  assertNoStorm(t, observed);
}

export async function slowPongOverTimeoutRow(observed: Observed, t: TestContext): Promise<void> {
  await settle(
    observed,
    'a timed-out ping and a reconnect',
    () => observed.connector.attempts.length >= 2 && wentTo(observed.transitions, 'down', 'timeout'),
  );
  assertNoProbeRetry(observed);
  assertNoStorm(t, observed);
}

export async function violationRow(observed: Observed, t: TestContext, outcome: 'non-empty' | 'error-reply'): Promise<void> {
  await settle(
    observed,
    'non-conformant verdict with a tools/list probe answered',
    (s) => s.nonConformant && okProbes(observed, 'tools/list') >= 1,
  );
  const [first, second] = observed.connector.connections;
  assertRow(first.probes[0]?.outcome === outcome && second.probes[0]?.outcome === outcome, `both connections saw ${outcome}`, observed);
  assertRow(observed.connector.attempts.length === 2, 'exactly one reconnect after the violation', observed);
  assertRow(
    observed.status().state === 'suspect' && observed.status().lastError?.kind === 'protocol-violation',
    'suspect, protocol-violation',
    observed,
  );
  await assertStaysPut(observed, 2_500);
  assertRow(
    second.probes.slice(1).every((p) => p.method === 'tools/list'),
    'only tools/list after the verdict',
    observed,
  );
  assertNoStorm(t, observed);
}

export async function ignoresPingRow(observed: Observed, t: TestContext): Promise<void> {
  await settle(observed, 'the ignores-ping verdict', (s) => s.nonConformant);
  assertRow(observed.status().state === 'suspect', 'suspect', observed);
  assertRow(observed.connector.attempts.length === 2, 'exactly one reconnect', observed);
  await assertStaysPut(observed, 2_500);
  assertNoProbeRetry(observed);
  assertRow(okProbes(observed, 'tools/list') >= 2, 'kept alive with tools/list', observed);
  assertNoStorm(t, observed);
}

export async function modernOnlyRow(observed: Observed, t: TestContext): Promise<void> {
  await settle(observed, 'two answered server/discover probes', () => okProbes(observed, 'server/discover') >= 2);
  const status = observed.status();
  assertRow(status.state === 'up' && status.era === 'modern', 'up, modern era', observed);
  assertRow(
    observed.connector.connections.every((c) => c.probes.every((p) => p.method === 'server/discover')),
    'no ping sent',
    observed,
  );
  assertNoStorm(t, observed);
}
