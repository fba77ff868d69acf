// What a running `mcp-health guard` reports about the connection it sits in, and how MCP Health shows a config entry
// that runs through a guard: never started here, its status read from the guard. Pure: the socket that carries the
// report lives in src/guard/statusChannel.ts; timers are injected.

import { boolean, integer, nullable, number, object, oneOf, optional, ownEntry, record, string, type Schema } from './channelSchema';
import type { Clock, TimerHandle } from './clock';
import { deepEqual } from './monitor/deepEqual';
import { EMPTY_PROBE_STATS } from './monitor/probeStats';
import type { GuardedFigures, ProbeResult, ProcessEnd, ServerConfig, ServerState, ServerStatus } from './model';
import type { GuardRestartOutcome, Unsubscribe } from './monitorTypes';

/** The published status of one guard process (the fields MCP Health reads; the guard sends more). */
export interface GuardReport {
  readonly name: string;
  readonly guardPid: number;
  readonly target: string;
  readonly state: 'starting' | 'ready' | 'restarting' | 'gave-up' | 'closed';
  readonly era: 'unknown' | 'handshake' | 'modern';
  readonly protocolVersion: string | null;
  readonly upstreamPid: number | null;
  readonly restarts: number;
  readonly keepalive: { readonly probes: number; readonly answered: number; readonly lastRttMs: number | null };
  readonly methods: Readonly<Record<string, { readonly count: number; readonly errors: number }>>;
  readonly lastError: ProcessEnd | null;
}

/** The channel messages MCP Health reads from a guard; one schema per type, checked before any field is used. */
export const GUARD_STATUS_TYPE = 'guard-status';
export const GUARD_PROBE_RESULT_TYPE = 'guard-probe-result';
export const GUARD_RESTART_RESULT_TYPE = 'guard-restart-result';

const processEndSchema: Schema<ProcessEnd> = object<ProcessEnd>({
  message: string,
  exitCode: nullable(integer),
  signal: nullable(string),
  stderrTail: string,
});

const count = integer;

export const guardReportSchema: Schema<GuardReport & { readonly type: typeof GUARD_STATUS_TYPE }> = object<
  GuardReport & { readonly type: typeof GUARD_STATUS_TYPE }
>({
  type: oneOf(GUARD_STATUS_TYPE),
  name: string,
  guardPid: integer,
  target: string,
  state: oneOf('starting', 'ready', 'restarting', 'closed'),
  era: oneOf('unknown', 'handshake', 'modern'),
  protocolVersion: nullable(string),
  upstreamPid: nullable(integer),
  restarts: count,
  keepalive: object<GuardReport['keepalive']>({ probes: count, answered: count, lastRttMs: nullable(number) }),
  methods: record(object<{ readonly count: number; readonly errors: number }>({ count, errors: count })),
  lastError: nullable(processEndSchema),
});

const probeResultSchema: Schema<ProbeResult> = object<ProbeResult>({
  method: oneOf('ping', 'server/discover', 'tools/list', 'initialize'),
  outcome: oneOf('ok', 'timeout', 'error-reply', 'non-empty', 'closed', 'auth', 'failed'),
  rttMs: optional(number),
  detail: optional(string),
  requestId: optional({ problem: (value) => (typeof value === 'string' || Number.isFinite(value) ? null : 'expected a string or number') }),
});

export const guardProbeAnswerSchema: Schema<{
  readonly type: typeof GUARD_PROBE_RESULT_TYPE;
  readonly guardPid: number;
  readonly probe: ProbeResult;
}> = object({
  type: oneOf(GUARD_PROBE_RESULT_TYPE),
  guardPid: integer,
  probe: probeResultSchema,
});

export const guardRestartAnswerSchema: Schema<{ readonly type: typeof GUARD_RESTART_RESULT_TYPE } & GuardRestartOutcome> = object({
  type: oneOf(GUARD_RESTART_RESULT_TYPE),
  guardPid: integer,
  restarting: boolean,
  detail: string,
});

export type { GuardedFigures } from './model';

export function requestCounts(report: GuardReport): { requests: number; errors: number } {
  const methods = Object.values(report.methods);
  return { requests: methods.reduce((sum, m) => sum + m.count, 0), errors: methods.reduce((sum, m) => sum + m.errors, 0) };
}

/** One line of figures, for the CLI table and the tree's tooltip. */
export function guardLine(report: GuardReport): string {
  const rtt = report.keepalive.lastRttMs === null ? '' : `, probe ${report.keepalive.lastRttMs.toFixed(1)} ms`;
  const { requests, errors } = requestCounts(report);
  const last = report.lastError ? `; last error: ${report.lastError.message}` : '';
  return `guarded ${report.state} (guard pid ${report.guardPid}, upstream pid ${report.upstreamPid ?? '-'}, ${report.era}, restarts ${report.restarts}${rtt}, ${requests} requests, ${errors} errors${last})`;
}

const STATE_OF: Readonly<Record<GuardReport['state'], ServerState>> = {
  starting: 'connecting',
  ready: 'up',
  // The guard is bringing a dead or hung upstream back: the client's requests fail until it is ready again.
  restarting: 'down',
  // Crashed too often (the monitor's crash-loop rule): not restarted until Reconnect asks the guard to.
  'gave-up': 'gave-up',
  closed: 'down',
};

/**
 * The status shown for a guarded entry: the running guard's report mapped onto MCP Health's states, or `idle` with
 * "guard not running" when none answered. With several guards of one name (several clients), the worst one shows.
 */
export function guardedStatus(config: ServerConfig, guardName: string, reports: readonly GuardReport[], wall: number): ServerStatus {
  const mine = reports.filter((report) => report.name === guardName);
  const rank = (report: GuardReport) => (report.state === 'ready' ? 0 : report.state === 'starting' ? 1 : 2);
  const shown = [...mine].sort((a, b) => rank(b) - rank(a))[0];
  const counts = shown ? requestCounts(shown) : { requests: 0, errors: 0 };
  const guarded: GuardedFigures = {
    guardName,
    running: shown !== undefined,
    guards: mine.length,
    guardPid: shown?.guardPid ?? null,
    upstreamPid: shown?.upstreamPid ?? null,
    restarts: shown?.restarts ?? 0,
    probeRttMs: shown?.keepalive.lastRttMs ?? null,
    ...counts,
  };
  // Looked up among own keys: a report is another process's JSON, and `constructor` is not a state.
  const state: ServerState = shown ? (ownEntry(STATE_OF, shown.state) ?? 'down') : 'idle';
  // Field by field on purpose: the report is another process's JSON, and only these fields belong in a status.
  const lastError = shown?.lastError
    ? {
        kind: 'exited' as const,
        message: shown.lastError.message,
        exitCode: shown.lastError.exitCode,
        signal: shown.lastError.signal,
        stderrTail: shown.lastError.stderrTail,
      }
    : null;
  return {
    config,
    state,
    era: shown && shown.era !== 'unknown' ? shown.era : null,
    protocolVersion: shown?.protocolVersion ?? null,
    serverInfo: null,
    lastRttMs: guarded.probeRttMs,
    lastError,
    lastProbeAt: null,
    lastStateChangeAt: wall,
    consecutiveFailures: 0,
    restarts: guarded.restarts,
    flapping: false,
    nonConformant: false,
    stats: EMPTY_PROBE_STATS,
    stderrTail: shown?.lastError?.stderrTail ?? '',
    pid: guarded.upstreamPid,
    guarded,
  };
}

export type { GuardRestartOutcome } from './monitorTypes';

/** Asking the running guards of one name to act, over their channel (src/guard/statusChannel.ts). */
export interface GuardControl {
  /** The guards' own probes of their upstreams, now; one per guard that answered. */
  probe(name: string): Promise<ReadonlyArray<{ readonly guardPid: number; readonly probe: ProbeResult }>>;
  restart(name: string): Promise<readonly GuardRestartOutcome[]>;
}

/**
 * The result shown for Ping on a guarded entry: with several guards of one name (several clients), the worst one.
 * null when no guard answered.
 */
export function worstProbe(answers: ReadonlyArray<{ readonly probe: ProbeResult }>): ProbeResult | null {
  const rank = (result: ProbeResult) => (result.outcome === 'ok' ? 0 : 1);
  return [...answers].map((answer) => answer.probe).sort((a, b) => rank(b) - rank(a) || (b.rttMs ?? 0) - (a.rttMs ?? 0))[0] ?? null;
}

/** Where guarded entries get their reports from. */
export interface GuardReports {
  /** The latest reports of every running guard of this user. */
  reports(): readonly GuardReport[];
  /** Fires when what the guards report changed. */
  onDidChange(listener: () => void): Unsubscribe;
  /** Polls only while someone shows a guarded entry. */
  setWanted(wanted: boolean): void;
  /** Ping on a guarded entry: its guards probe their upstreams now. Absent where the guards cannot be asked. */
  probe?(name: string): Promise<ProbeResult | null>;
  /** Reconnect on a guarded entry: its guards restart their upstreams, if that fails none of the client's requests. */
  restart?(name: string): Promise<readonly GuardRestartOutcome[]>;
  dispose(): void;
}

/** How often a shown guarded entry's figures are re-read. */
export const GUARD_POLL_MS = 2_000;

/** Reads the guards' reports every `intervalMs` while wanted; fires only on a change. */
export class GuardPoller implements GuardReports {
  private latest: readonly GuardReport[] = [];
  private readonly listeners = new Set<() => void>();
  private timer: TimerHandle | null = null;
  private wanted = false;
  private reading = false;
  private disposed = false;

  constructor(
    private readonly clock: Clock,
    private readonly read: () => Promise<readonly GuardReport[]>,
    private readonly intervalMs = GUARD_POLL_MS,
    private readonly control?: GuardControl,
  ) {}

  async probe(name: string): Promise<ProbeResult | null> {
    if (!this.control || this.disposed) return null;
    const result = worstProbe(await this.control.probe(name));
    this.pollSoon();
    return result;
  }

  async restart(name: string): Promise<readonly GuardRestartOutcome[]> {
    if (!this.control || this.disposed) return [];
    const outcomes = await this.control.restart(name);
    this.pollSoon();
    return outcomes;
  }

  /** After acting on a guard, its new figures (the probe's RTT, a restart) are read at once, not at the next tick. */
  private pollSoon(): void {
    if (!this.wanted || this.disposed || this.reading) return;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    void this.poll();
  }

  reports(): readonly GuardReport[] {
    return this.latest;
  }

  onDidChange(listener: () => void): Unsubscribe {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  setWanted(wanted: boolean): void {
    if (this.disposed || this.wanted === wanted) return;
    this.wanted = wanted;
    if (wanted) {
      void this.poll();
    } else if (this.timer) {
      this.clock.clearTimeout(this.timer);
      this.timer = null;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.wanted = false;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  private async poll(): Promise<void> {
    if (this.reading || this.disposed || !this.wanted) return;
    this.reading = true;
    let next: readonly GuardReport[];
    try {
      next = await this.read();
    } catch {
      // A guard vanishing mid-read is an ordinary event; the next poll sees what is left.
      next = this.latest;
    }
    this.reading = false;
    if (this.disposed || !this.wanted) return;
    // Sort by pid so the order sockets are listed in does not count as a change.
    const sorted = [...next].sort((a, b) => a.guardPid - b.guardPid);
    if (!deepEqual(sorted, this.latest)) {
      this.latest = sorted;
      for (const listener of [...this.listeners]) listener();
    }
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.poll();
    }, this.intervalMs);
  }
}

/** Reports read once (the CLI's `list` and `check`): nothing to poll. */
export function fixedGuardReports(reports: readonly GuardReport[]): GuardReports {
  return { reports: () => reports, onDidChange: () => () => undefined, setWanted: () => undefined, dispose: () => undefined };
}
