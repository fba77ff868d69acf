// What is known about one server's health, and the only place it changes: state and its history, the last error,
// probe statistics, flapping and slowness, what the current connection said about itself. Everything that enters is
// redacted first, because all of it leaves the core (views, logs, the CLI's JSON).

import type { Connection } from '../connection';
import type { Era, ProbeOutcome, ProbeResult, ServerError, ServerInfo, ServerState, ServerStatus } from '../model';
import type { MonitorEvent } from '../monitorTypes';
import { classifyFailure } from '../causes';
import { logs } from '../logger';
import type { CrashLoopSettings } from './crashLoop';
import { FlapDetector } from './flapping';
import { ProbeStatistics } from './probeStats';
import { answered, failedState } from './probePolicy';
import { redactedError, redactedInfo } from './redactStatus';
import { say, type ServerScope } from './serverScope';
import { defaultSlowSettings, SlowDetector, slowThresholdFor } from './slowness';

const STDERR_TAIL_CHARS = 4_096;

export interface RecordContext extends ServerScope {
  /** Events carry the whole status, which the monitor assembles (inventory and verdicts are not recorded here). */
  status(): ServerStatus;
  emit(event: MonitorEvent): void;
}

/** What the record cannot know by itself, added to its status by the monitor. */
export interface StatusExtras {
  readonly nonConformant: boolean;
  readonly inventory: ServerStatus['inventory'];
  readonly drift: ServerStatus['drift'];
  readonly certificate: ServerStatus['certificate'];
}

export class HealthRecord {
  private current: ServerState;
  private lastError: ServerError | null;
  private lastStateChangeAt: number;
  private era: Era | null = null;
  private protocolVersion: string | null = null;
  private serverInfo: ServerInfo | null = null;
  private pid: number | null = null;
  private lastRttMs: number | null = null;
  private lastProbeAt: number | null = null;
  private failures = 0;
  private restarts = 0;
  private stderrTail = '';
  private readonly stats = new ProbeStatistics();
  private readonly flaps = new FlapDetector();
  private readonly slowness = new SlowDetector();
  /** When the current connection opened (monotonic); null while there is none. */
  private connectedAt: number | null = null;
  /** How long the current connection took to open, until a probe on it answers (then the probe's RTT is shown). */
  private handshakeMs: number | null = null;
  private retryAt: number | null = null;
  private everEstablished = false;
  /** While `starting`: when the start slot was granted (wall) and the budget. */
  private startup: { since: number | null; budgetMs: number } | null = null;
  private gaveUp: CrashLoopSettings | null = null;
  /** The connection that ended last had been up for a stable stretch: its end is a fresh incident. */
  private endedStable = false;

  constructor(
    initial: ServerState,
    error: ServerError | null,
    private readonly context: RecordContext,
  ) {
    this.current = initial;
    this.lastError = error ? redactedError(error, this.context.redact) : null;
    this.lastStateChangeAt = context.clock.wall();
  }

  get state(): ServerState {
    return this.current;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  get flapping(): boolean {
    return this.flaps.flapping;
  }

  get lastEra(): Era | null {
    return this.era;
  }

  status(extras: StatusExtras): ServerStatus {
    const config = this.context.config();
    const { nonConformant } = extras;
    return {
      config,
      state: this.current,
      era: this.era,
      protocolVersion: this.protocolVersion,
      serverInfo: this.serverInfo,
      lastRttMs: this.lastRttMs,
      lastError: this.lastError,
      lastProbeAt: this.lastProbeAt,
      lastStateChangeAt: this.lastStateChangeAt,
      consecutiveFailures: this.failures,
      restarts: this.restarts,
      flapping: this.flaps.flapping,
      slow: this.slowness.slow,
      nonConformant,
      stats: this.stats.snapshot(this.now()),
      stderrTail: this.stderrTail,
      pid: this.pid,
      handshakeMs: this.handshakeMs,
      nextRetryAt: this.current === 'down' || this.current === 'auth-required' ? this.retryAt : null,
      startup: this.current === 'starting' && this.startup ? { ...this.startup } : null,
      gaveUp: this.current === 'gave-up' && this.gaveUp ? { ...this.gaveUp } : null,
      cause: classifyFailure({
        state: this.current,
        error: this.lastError,
        transport: config.transport,
        command: config.command,
        name: config.name,
        nonConformant,
      }),
      inventory: extras.inventory,
      drift: extras.drift,
      certificate: extras.certificate,
    };
  }

  /** `error` undefined keeps the last error: it stays visible after recovery (e.g. the exit code of the last crash). */
  transition(to: ServerState, reason: string, error?: ServerError | null): void {
    if (error !== undefined) {
      this.lastError = error === null ? null : redactedError(error, this.context.redact);
    }
    if (to === this.current) {
      return;
    }
    const from = this.current;
    this.current = to;
    if (to !== 'starting') this.startup = null;
    if (to !== 'gave-up') this.gaveUp = null;
    this.lastStateChangeAt = this.context.clock.wall();
    this.stats.noteUp(to === 'up', this.now());
    const cleanReason = this.context.redact(reason);
    this.context.logger.info(`${this.context.redact(this.name())}: ${from} -> ${to} (${cleanReason})`);
    this.emit({ type: 'state', id: this.context.config().id, from, to, reason: cleanReason, status: this.context.status() });
  }

  /** A failure of a probe, a connect or a session; the state it leads to follows the failure threshold. */
  noteFailure(): void {
    this.failures += 1;
  }

  /** The state a failure (already counted) leads to: down, or still reconnecting within the failure threshold. */
  failedState(): ServerState {
    return failedState(this.current, this.everEstablished, this.failures, this.context.settings().failuresBeforeDown);
  }

  /** A first start waits for its slot: shown `starting`, its budget not yet running. */
  beginStart(budgetMs: number): void {
    this.startup = { since: null, budgetMs };
  }

  /** The start slot was granted: the elapsed time shown counts from now. False when the server is no longer starting. */
  startRunning(): boolean {
    if (this.current !== 'starting' || !this.startup) return false;
    this.startup = { ...this.startup, since: this.context.clock.wall() };
    return true;
  }

  /** The crash-loop rule stopped the restarts: shown `gave-up` with the last error, until a restart. */
  giveUp(settings: CrashLoopSettings, reason: string, error: ServerError): void {
    this.gaveUp = settings;
    this.retryAt = null;
    this.transition('gave-up', reason, error);
  }

  /** Whether the connection that just ended had been up for a stable stretch (read once per failure). */
  takeEndedStable(): boolean {
    const stable = this.endedStable;
    this.endedStable = false;
    return stable;
  }

  /** A stretch the process did not run (a suspend): neither up nor down in the uptime. */
  unobserved(monotonicFrom: number, monotonicTo: number): void {
    this.stats.unobserved(monotonicFrom, monotonicTo);
  }

  /** Observation (uptime) starts with the first connect attempt; time before it says nothing about the server. */
  attempting(): void {
    this.stats.startObserving(this.now());
  }

  connected(connection: Connection, handshakeMs: number): void {
    this.endedStable = false;
    this.handshakeMs = handshakeMs;
    this.retryAt = null;
    this.era = connection.era;
    this.protocolVersion = connection.protocolVersion;
    this.serverInfo = connection.serverInfo && redactedInfo(connection.serverInfo, this.context.redact);
    this.pid = connection.pid;
    this.connectedAt = this.now();
  }

  /** The connection is in use: every connection after the first is a restart (counted for flapping). */
  established(): void {
    if (this.everEstablished) {
      this.recordRestart();
    }
    this.everEstablished = true;
  }

  disconnected(): void {
    if (this.connectedAt !== null && this.now() - this.connectedAt >= this.context.settings().flapping.stableMs) {
      // Up for a whole stable stretch without a restart: what ends it now is a new incident, not part of a loop,
      // even when no probe came in between to clear the flapping flag.
      this.endedStable = true;
      this.flaps.noteHealthy(this.now(), this.connectedAt, this.context.settings().flapping);
    }
    this.connectedAt = null;
    this.handshakeMs = null;
    this.pid = null;
  }

  setRetryAt(wallTime: number | null): void {
    this.retryAt = wallTime;
  }

  /** A probe (or the fallback) proved the server alive. Returns whether the reconnect backoff may start over. */
  noteAlive(): boolean {
    this.stats.noteVerified();
    this.failures = 0;
    if (this.connectedAt !== null && this.flaps.noteHealthy(this.now(), this.connectedAt, this.context.settings().flapping)) {
      say(this.context, 'info', 'stable again, no longer flapping');
      this.announce();
    }
    // A crash loop answers a probe between crashes; resetting on that would restart it at the shortest delay
    // forever. A flapping server's backoff resets only once a stable stretch has cleared the flag.
    return !this.flaps.flapping;
  }

  recordProbe(result: ProbeResult): void {
    const settings = this.context.settings();
    this.lastProbeAt = this.context.clock.wall();
    if (result.rttMs !== undefined && answered(result.outcome)) {
      this.lastRttMs = result.rttMs;
      this.noteSlowness(
        this.slowness.record(result.rttMs, slowThresholdFor(this.context.config(), settings), settings.slow ?? defaultSlowSettings),
      );
    } else {
      this.noteSlowness(this.slowness.reset());
    }
    this.stats.record({
      at: this.lastProbeAt,
      method: result.method,
      outcome: result.outcome,
      ...(result.rttMs !== undefined ? { rttMs: result.rttMs } : {}),
    });
    if (answered(result.outcome)) {
      this.handshakeMs = null;
    }
    // At info, the channel's default level: a user who opens the ping log must see that pings happen.
    if (logs(this.context.logger, 'info')) {
      const rtt = result.rttMs !== undefined ? ` in ${Math.round(result.rttMs * 10) / 10} ms` : '';
      const detail = result.detail ? ` (${result.detail})` : '';
      this.context.logger.info(
        this.context.redact(`probe ${this.name()}: ${result.method} id=${result.requestId ?? '-'} ${result.outcome}${rtt}${detail}`),
      );
    }
    this.emit(new ProbeEvent(this.context.config().id, result, this.context));
  }

  /** A stderr chunk of the running child, redacted; returns the clean text for the log and the stderr event. */
  noteStderr(text: string): string {
    const clean = this.context.redact(text);
    this.stderrTail = (this.stderrTail + clean).slice(-STDERR_TAIL_CHARS);
    return clean;
  }

  /** A failed connect or an ended session: the error as it is shown, its stderr tail kept as the server's. */
  failure(error: ServerError): ServerError {
    const clean = redactedError(error, this.context.redact);
    if (clean.stderrTail) {
      this.stderrTail = clean.stderrTail.slice(-STDERR_TAIL_CHARS);
    }
    return clean;
  }

  /** What pingNow reports for a server it could not connect to. */
  connectFailureResult(): ProbeResult {
    const kind = this.lastError?.kind;
    const outcome: ProbeOutcome = kind === 'auth' ? 'auth' : kind === 'timeout' ? 'timeout' : 'failed';
    return {
      method: this.era === 'modern' ? 'server/discover' : 'initialize',
      outcome,
      detail: this.lastError?.message ?? 'not connected',
    };
  }

  private recordRestart(): void {
    this.restarts += 1;
    this.stats.recordRestart(this.context.clock.wall());
    const settings = this.context.settings().flapping;
    if (this.flaps.recordRestart(this.now(), settings)) {
      say(this.context, 'warn', `flapping: ${settings.restarts} or more restarts within ${settings.windowMs} ms`);
    }
  }

  private noteSlowness(change: 'entered' | 'cleared' | null): void {
    if (change === 'entered') {
      const threshold = slowThresholdFor(this.context.config(), this.context.settings());
      say(this.context, 'warn', `slow: answers keep taking longer than ${threshold} ms`);
      this.announce();
    } else if (change === 'cleared') {
      say(this.context, 'info', 'no longer slow');
      this.announce();
    }
  }

  /** A flag changed without a state change (slow, flapping): the views and the healthy gauge follow it. */
  private announce(): void {
    this.emit({ type: 'status', id: this.context.config().id, status: this.context.status() });
  }

  private emit(event: MonitorEvent): void {
    this.context.emit(event);
  }

  private name(): string {
    return this.context.config().name;
  }

  private now(): number {
    return this.context.clock.monotonic();
  }
}

/**
 * The snapshot (percentiles over the probe history) is built only if a listener reads it: at a thousand servers most
 * probe events are counted, not rendered. A class, so the getter lives on its prototype rather than being defined on
 * an object literal for every probe.
 */
class ProbeEvent {
  readonly type = 'probe';

  constructor(
    readonly id: string,
    readonly result: ProbeResult,
    private readonly source: { status(): ServerStatus },
  ) {}

  get status(): ServerStatus {
    return this.source.status();
  }
}
