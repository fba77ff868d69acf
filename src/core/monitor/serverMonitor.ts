// One server's state machine and keepalive scheduler, following protocol.md: probe after idle time, never retry a
// timed-out probe, reconnect with jittered backoff, reconnect once on a protocol violation and then probe a
// non-conformant server with a fallback request instead of restarting it again and again.

import type { Clock, TimerHandle } from '../clock';
import { ConnectError, type CloseInfo, type Connection, type Connector } from '../connection';
import type { Logger } from '../logger';
import type {
  Era,
  ProbeMethod,
  ProbeOutcome,
  ProbeResult,
  ServerConfig,
  ServerError,
  ServerInfo,
  ServerState,
  ServerStatus,
} from '../model';
import type { ConnectSlots } from './connectSlots';
import type { MonitorEvent, MonitorSettings } from '../monitorTypes';
import { backoffDelay } from './backoff';
import { FlapDetector } from './flapping';
import type { Gate } from './gate';
import { guardWithTimer, type Guarded } from './guard';
import { InventoryTracker } from './inventoryTracker';
import { classifyFailure } from '../causes';
import { defaultSlowSettings, SlowDetector, slowThresholdFor } from './slowness';
import type { ToolsBaseline } from '../inventory/types';
import { defaultInventorySettings } from '../monitorTypes';
import { probeIntervalFor, probeTimeoutFor } from './intervals';
import { ProbeStatistics } from './probeStats';
import { makeRedactor } from './redaction';

export interface MonitorContext {
  readonly connector: Connector;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random: () => number;
  readonly redact?: (text: string) => string;
  /** Shared by every server of a registry, so a burst of connects is spread out instead of timing out together. */
  readonly connectSlots: ConnectSlots;
  settings(): MonitorSettings;
  /** Before start() the monitor only acts on request (pingNow, reconnect): no keepalive, no automatic reconnect. */
  isStarted(): boolean;
  emit(event: MonitorEvent): void;
}

/** Cheap, answered by every server that lists tools; used for servers that do not answer the era's probe properly. */
export const FALLBACK_PROBE_METHOD: ProbeMethod = 'tools/list';
/** The connection's own timeouts should fire first; these only catch a broken promise. */
const PROBE_GUARD_GRACE_MS = 1_000;
const CONNECT_GUARD_GRACE_MS = 1_000;
/** close() kills with SIGKILL after its own grace period; a close that still hangs must not block reconnects forever. */
const CLOSE_WAIT_LIMIT_MS = 10_000;
const STDERR_TAIL_CHARS = 4_096;
/** First probes timing out on this many fresh connections in a row suggests a server that ignores ping. */
const IGNORED_PING_STREAK = 2;

type Violation = Extract<ProbeOutcome, 'error-reply' | 'non-empty'>;

function defaultProbeMethod(era: Era | null): ProbeMethod {
  return era === 'modern' ? 'server/discover' : 'ping';
}

/** A fallback probe proves the message loop runs whenever anything came back, even an error. */
function answered(outcome: ProbeOutcome): boolean {
  return outcome === 'ok' || outcome === 'error-reply' || outcome === 'non-empty';
}

function describeViolation(result: ProbeResult): string {
  const what = result.outcome === 'error-reply' ? 'a JSON-RPC error' : 'a non-empty result';
  return `${result.method} answered with ${what}${result.detail ? `: ${result.detail}` : ''}`;
}

function toServerError(error: unknown): ServerError {
  if (error instanceof ConnectError) {
    return {
      kind: error.kind,
      message: error.message,
      ...(error.details.exitCode !== undefined ? { exitCode: error.details.exitCode } : {}),
      ...(error.details.signal !== undefined ? { signal: error.details.signal } : {}),
      ...(error.details.stderrTail !== undefined ? { stderrTail: error.details.stderrTail } : {}),
      ...(error.details.httpStatus !== undefined ? { httpStatus: error.details.httpStatus } : {}),
      ...(error.details.code !== undefined ? { code: error.details.code } : {}),
      ...(error.details.authenticate !== undefined ? { authenticate: error.details.authenticate } : {}),
      ...(error.details.searchPath !== undefined ? { searchPath: error.details.searchPath } : {}),
      ...(error.details.proxy !== undefined ? { proxy: error.details.proxy } : {}),
      phase: 'connect',
    };
  }
  return { kind: 'unreachable', message: error instanceof Error ? error.message : String(error), phase: 'connect' };
}

export class ServerMonitor {
  private state: ServerState;
  private lastError: ServerError | null;
  private lastStateChangeAt: number;
  private era: Era | null = null;
  private protocolVersion: string | null = null;
  private serverInfo: ServerInfo | null = null;
  private pid: number | null = null;
  private lastRttMs: number | null = null;
  private lastProbeAt: number | null = null;
  private consecutiveFailures = 0;
  private restarts = 0;
  private stderrTail = '';
  private readonly stats = new ProbeStatistics();
  private readonly flaps = new FlapDetector();
  private readonly slowness = new SlowDetector();
  private readonly redact: (text: string) => string;
  private readonly inventory: InventoryTracker;

  private connection: Connection | null = null;
  /** Bumped whenever a connection is started or torn down, so late callbacks of an old one are ignored. */
  private generation = 0;
  private connectAttempt: Promise<void> | null = null;
  private pendingConnect: Guarded<Connection> | null = null;
  private connectAbort: AbortController | null = null;
  private closing: Promise<void> = Promise.resolve();
  private probeInFlight: Promise<ProbeResult> | null = null;
  private pendingProbe: Guarded<ProbeResult> | null = null;
  private idleTimer: TimerHandle | null = null;
  private reconnectTimer: TimerHandle | null = null;
  private lastActivityAt = 0;
  private connectedAt: number | null = null;
  private probesOnConnection = 0;
  private everEstablished = false;
  private backoffAttempt = 0;
  /** After a failed probe the fresh connection is checked at once rather than after a full idle interval. */
  private verifyOnConnect = false;
  /** The violation that caused the one reconnect; seeing it again on the fresh connection means non-conformant. */
  private pendingViolation: Violation | null = null;
  private nonConformantReason: string | null = null;
  private firstProbeTimeoutStreak = 0;
  /** Probes still to be answered in a row before a recovering server is shown up again. */
  private recoveringLeft = 0;
  private ignoredPingChecked = false;
  private disposed = false;

  constructor(
    readonly config: ServerConfig,
    /** The diagnostic that keeps this server in `config-error`, part of its identity for reconciliation. */
    readonly configError: ServerError | null,
    private gate: Gate | null,
    private readonly context: MonitorContext,
  ) {
    this.redact = makeRedactor(config.secretValues, context.redact);
    this.state = gate?.state ?? 'idle';
    this.lastError = gate?.error ? this.redactError(gate.error) : null;
    this.lastStateChangeAt = context.clock.wall();
    this.inventory = new InventoryTracker(context.clock, {
      listed: (inventory) => {
        if (inventory.problems.length) {
          context.logger.warn(this.redact(`${config.name}: listing incomplete: ${inventory.problems.join('; ')}`));
        }
        this.emit({ type: 'inventory', id: this.id, status: this.status() });
      },
      drifted: (drift, summary) => {
        context.logger.warn(this.redact(`${config.name}: tools changed since the accepted baseline: ${summary}`));
        this.emit({ type: 'tools-changed', id: this.id, drift, status: this.status() });
      },
    });
  }

  get id(): string {
    return this.config.id;
  }

  get isGated(): boolean {
    return this.gate !== null;
  }

  status(): ServerStatus {
    return {
      config: this.config,
      state: this.state,
      era: this.era,
      protocolVersion: this.protocolVersion,
      serverInfo: this.serverInfo,
      lastRttMs: this.lastRttMs,
      lastError: this.lastError,
      lastProbeAt: this.lastProbeAt,
      lastStateChangeAt: this.lastStateChangeAt,
      consecutiveFailures: this.consecutiveFailures,
      restarts: this.restarts,
      flapping: this.flaps.flapping,
      slow: this.slowness.slow,
      nonConformant: this.nonConformantReason !== null,
      stats: this.stats.snapshot(this.now()),
      stderrTail: this.stderrTail,
      pid: this.pid,
      cause: classifyFailure({
        state: this.state,
        error: this.lastError,
        transport: this.config.transport,
        command: this.config.command,
        nonConformant: this.nonConformantReason !== null,
      }),
      inventory: this.inventory.inventory,
      drift: this.inventory.currentDrift,
    };
  }

  /** Resolves once this connection's listing of tools, prompts and resources (if one is under way) settled. */
  inventorySettled(): Promise<void> {
    return this.inventory.settled();
  }

  /** The tool set this server is compared against (accepted, given, or the first whole listing). */
  toolsBaseline(): ToolsBaseline | null {
    return this.inventory.accepted;
  }

  setToolsBaseline(baseline: ToolsBaseline | null): void {
    this.inventory.setBaseline(baseline);
  }

  /** Takes the tools listed now as the accepted baseline; null when there is no whole listing to accept. */
  acceptToolsBaseline(): ToolsBaseline | null {
    const accepted = this.inventory.acceptCurrent();
    if (accepted) this.emit({ type: 'inventory', id: this.id, status: this.status() });
    return accepted;
  }

  /** Begins automatic monitoring: connects, or resumes keepalive on a connection opened on request. */
  start(): void {
    if (this.gate || this.disposed) {
      return;
    }
    if (this.connection) {
      this.scheduleIdleProbe();
    } else if (!this.connectAttempt && !this.reconnectTimer) {
      void this.connectNow('monitoring started');
    }
  }

  setGate(gate: Gate | null): void {
    if (this.disposed) {
      return;
    }
    const wasGated = this.gate !== null;
    this.gate = gate;
    if (gate) {
      this.teardown();
      this.transition(gate.state, gate.reason, gate.error);
      return;
    }
    if (wasGated) {
      this.transition('idle', 'may be contacted again', null);
      if (this.context.isStarted()) {
        void this.connectNow('monitoring enabled');
      }
    }
  }

  /** Probes now, connecting first when needed. Null for a server that may not be contacted. */
  async pingNow(): Promise<ProbeResult | null> {
    if (this.gate || this.disposed) {
      return null;
    }
    if (!this.connection) {
      await this.connectNow('probe requested');
    }
    if (!this.connection) {
      return this.connectFailureResult();
    }
    return this.probeNow();
  }

  async reconnect(): Promise<void> {
    if (this.gate || this.disposed) {
      return;
    }
    this.backoffAttempt = 0;
    this.nonConformantReason = null;
    this.pendingViolation = null;
    this.firstProbeTimeoutStreak = 0;
    this.ignoredPingChecked = false;
    this.verifyOnConnect = false;
    this.teardown();
    await this.connectNow('reconnect requested');
  }

  /** Settings changed: the idle timer follows the new interval; nothing reconnects. */
  retime(): void {
    if (this.connection && this.idleTimer) {
      this.scheduleIdleProbe();
    }
  }

  async dispose(): Promise<void> {
    if (this.disposed) {
      return this.closing;
    }
    this.disposed = true;
    this.teardown();
    await this.waitForClose();
  }

  // --- connecting -------------------------------------------------------------------------------------------------

  private connectNow(reason: string): Promise<void> {
    if (this.disposed || this.gate || this.connection) {
      return Promise.resolve();
    }
    if (this.connectAttempt) {
      return this.connectAttempt;
    }
    this.clearReconnectTimer();
    const attempt: Promise<void> = this.runConnect(reason)
      .catch((error: unknown) => this.logError(`connect of ${this.config.name} failed unexpectedly: ${String(error)}`))
      .finally(() => {
        if (this.connectAttempt === attempt) {
          this.connectAttempt = null;
        }
      });
    this.connectAttempt = attempt;
    return attempt;
  }

  private async runConnect(reason: string): Promise<void> {
    // Never two children of one server at once: the previous one must be gone first.
    await this.waitForClose();
    if (this.disposed || this.gate || this.connection) {
      return;
    }
    const generation = ++this.generation;
    this.stats.startObserving(this.now());
    this.transition('connecting', reason);
    // The connect timeout starts when a slot is granted: waiting behind other servers is not this server's fault.
    const release = await this.context.connectSlots.acquire();
    try {
      if (generation !== this.generation || this.disposed || this.gate || this.connection) {
        return;
      }
      await this.connectWithSlot(generation);
    } finally {
      release();
    }
  }

  private async connectWithSlot(generation: number): Promise<void> {
    const settings = this.context.settings();
    const abort = new AbortController();
    this.connectAbort = abort;
    const work = this.context.connector.connect(this.config, {
      timeoutMs: settings.connectTimeoutMs,
      eraHint: this.era,
      signal: abort.signal,
    });
    const guarded = guardWithTimer(
      this.context.clock,
      work,
      settings.connectTimeoutMs + CONNECT_GUARD_GRACE_MS,
      () => {
        abort.abort();
        return { error: new ConnectError('timeout', `no connection within ${settings.connectTimeoutMs} ms`) };
      },
      (late) => void this.closeQuietly(late),
    );
    this.pendingConnect = guarded;
    let connection: Connection;
    try {
      connection = await guarded.promise;
    } catch (error) {
      if (generation === this.generation && !this.disposed) {
        this.pendingConnect = null;
        this.connectAbort = null;
        this.onConnectFailed(error);
      }
      return;
    }
    if (generation !== this.generation || this.disposed || this.gate) {
      void this.closeQuietly(connection);
      return;
    }
    this.pendingConnect = null;
    this.connectAbort = null;
    this.attach(connection, generation);
  }

  private attach(connection: Connection, generation: number): void {
    this.connection = connection;
    this.era = connection.era;
    this.protocolVersion = connection.protocolVersion;
    this.serverInfo = connection.serverInfo;
    this.pid = connection.pid;
    this.connectedAt = this.now();
    this.lastActivityAt = this.connectedAt;
    this.probesOnConnection = 0;
    connection.onActivity(() => {
      if (generation === this.generation) {
        this.lastActivityAt = this.now();
      }
    });
    connection.onClose((info) => this.onConnectionClosed(info, generation));
    connection.onStderr((text) => this.onStderr(text));
    if (this.connection !== connection) {
      return; // closed while the listeners were being attached
    }
    if (this.everEstablished) {
      this.recordRestart();
    }
    this.everEstablished = true;

    const version = this.protocolVersion ? ` ${this.protocolVersion}` : '';
    if (this.pendingViolation) {
      this.transition('suspect', `reconnected (${connection.era}${version}); re-checking after a protocol violation`);
    } else if (this.nonConformantReason !== null) {
      this.transition('suspect', `connected (${connection.era}${version}); non-conformant: ${this.nonConformantReason}`);
    } else if (this.consecutiveFailures > 0 && this.recoveryThreshold() > 1) {
      // After a failure, up only once enough probes in a row have answered (the recovery threshold).
      this.recoveringLeft = this.recoveryThreshold();
      this.verifyOnConnect = true;
      this.transition('connecting', `reconnected (${connection.era}${version}); recovering`);
      this.context.logger.info(this.redact(`${this.config.name}: reconnected; recovering: 0/${this.recoveringLeft} probes answered`));
    } else {
      this.recoveringLeft = 0;
      this.transition('up', `connected (${connection.era}${version})`);
    }

    // Once per connection, beside (never inside) the keepalive path.
    this.inventory.start(connection, this.context.settings().inventory ?? defaultInventorySettings, () => generation === this.generation && !this.disposed);

    const verifyNow = this.verifyOnConnect;
    this.verifyOnConnect = false;
    if (!this.context.isStarted()) {
      return;
    }
    if (verifyNow) {
      void this.probeNow();
    } else {
      this.scheduleIdleProbe();
    }
  }

  private onConnectFailed(error: unknown): void {
    const serverError = this.redactError(toServerError(error));
    if (serverError.stderrTail) {
      this.stderrTail = serverError.stderrTail.slice(-STDERR_TAIL_CHARS);
    }
    this.consecutiveFailures += 1;
    this.logError(`${this.config.name}: connect failed (${serverError.kind}): ${serverError.message}`);
    if (serverError.kind === 'auth') {
      this.transition('auth-required', `credentials needed: ${serverError.message}`, serverError);
      this.scheduleAuthRetry();
    } else {
      this.transition(this.failedState(), `connect failed: ${serverError.message}`, serverError);
      this.scheduleBackoffReconnect();
    }
  }

  private onConnectionClosed(info: CloseInfo, generation: number): void {
    if (generation !== this.generation || this.disposed) {
      return;
    }
    const error = this.redactError({
      kind: info.kind,
      message: info.message,
      ...(info.exitCode !== undefined ? { exitCode: info.exitCode } : {}),
      ...(info.signal !== undefined ? { signal: info.signal } : {}),
      ...(info.stderrTail !== undefined ? { stderrTail: info.stderrTail } : {}),
      phase: 'session',
    });
    if (error.stderrTail) {
      this.stderrTail = error.stderrTail.slice(-STDERR_TAIL_CHARS);
    }
    this.teardown();
    this.consecutiveFailures += 1;
    this.logError(`${this.config.name}: connection ended (${error.kind}): ${error.message}`);
    this.transition(this.failedState(), error.message, error);
    this.scheduleBackoffReconnect();
  }

  private onStderr(text: string): void {
    if (this.disposed) {
      return;
    }
    const clean = this.redact(text);
    this.stderrTail = (this.stderrTail + clean).slice(-STDERR_TAIL_CHARS);
    this.context.logger.debug(`${this.config.name} stderr: ${clean.trimEnd()}`);
    this.context.emit({ type: 'stderr', id: this.id, text: clean });
  }

  // --- probing ----------------------------------------------------------------------------------------------------

  private probeNow(): Promise<ProbeResult> {
    if (this.probeInFlight) {
      return this.probeInFlight;
    }
    const connection = this.connection;
    if (!connection) {
      return Promise.resolve(this.connectFailureResult());
    }
    this.clearIdleTimer();
    const flight: Promise<ProbeResult> = this.probeCycle(connection, this.generation).finally(() => {
      if (this.probeInFlight === flight) {
        this.probeInFlight = null;
      }
    });
    this.probeInFlight = flight;
    return flight;
  }

  private async probeCycle(connection: Connection, generation: number): Promise<ProbeResult> {
    const method = this.nonConformantReason !== null ? FALLBACK_PROBE_METHOD : undefined;
    const firstOnConnection = this.probesOnConnection === 0;
    this.probesOnConnection += 1;
    const result = await this.sendProbe(connection, method);
    if (generation !== this.generation || this.disposed) {
      return result;
    }
    this.lastActivityAt = Math.max(this.lastActivityAt, this.now());
    this.finishProbe(result);
    if (method === FALLBACK_PROBE_METHOD) {
      this.afterFallbackProbe(result);
      return result;
    }
    if (result.outcome === 'timeout' && firstOnConnection) {
      this.firstProbeTimeoutStreak += 1;
      if (this.firstProbeTimeoutStreak >= IGNORED_PING_STREAK && !this.ignoredPingChecked) {
        return this.checkIgnoredPing(connection, generation, result);
      }
    }
    this.afterDefaultProbe(result);
    return result;
  }

  /**
   * Fresh connections keep timing out on their first probe. Before restarting the server yet again, ask something
   * else: a server that answers tools/list but not ping is alive, and restarting it would only start a storm.
   */
  private async checkIgnoredPing(connection: Connection, generation: number, timedOut: ProbeResult): Promise<ProbeResult> {
    this.ignoredPingChecked = true;
    this.context.logger.warn(
      this.redact(`${this.config.name}: ${timedOut.method} timed out on ${this.firstProbeTimeoutStreak} fresh connections in a row; trying ${FALLBACK_PROBE_METHOD}`),
    );
    const fallback = await this.sendProbe(connection, FALLBACK_PROBE_METHOD);
    if (generation !== this.generation || this.disposed) {
      return fallback;
    }
    this.lastActivityAt = Math.max(this.lastActivityAt, this.now());
    this.finishProbe(fallback);
    if (!answered(fallback.outcome)) {
      this.afterDefaultProbe(timedOut);
      return fallback;
    }
    this.markNonConformant(`ignores ${timedOut.method}`, {
      kind: 'protocol-violation',
      message: `${timedOut.method} is never answered, but ${FALLBACK_PROBE_METHOD} is: probing with ${FALLBACK_PROBE_METHOD}`,
    });
    this.onAlive();
    this.scheduleIdleProbe();
    return fallback;
  }

  private afterDefaultProbe(result: ProbeResult): void {
    switch (result.outcome) {
      case 'ok':
        this.firstProbeTimeoutStreak = 0;
        this.ignoredPingChecked = false;
        this.pendingViolation = null;
        this.onAlive();
        if (this.recoveringLeft > 1) {
          this.recoveringLeft -= 1;
          const needed = this.recoveryThreshold();
          this.context.logger.info(this.redact(`${this.config.name}: recovering: ${needed - this.recoveringLeft}/${needed} probes answered`));
        } else {
          this.recoveringLeft = 0;
          this.transition('up', `${result.method} answered`);
        }
        this.scheduleIdleProbe();
        return;
      case 'error-reply':
      case 'non-empty':
        this.onViolation(result.outcome, result);
        return;
      case 'auth':
        this.onProbeAuth(result);
        return;
      case 'timeout':
        this.onProbeFailed(result, 'timeout');
        return;
      case 'closed':
      case 'failed':
        this.onProbeFailed(result, 'unreachable');
        return;
    }
  }

  private afterFallbackProbe(result: ProbeResult): void {
    if (answered(result.outcome)) {
      this.onAlive();
      this.transition('suspect', `non-conformant (${this.nonConformantReason ?? 'unknown'}); alive: ${result.method} answered`);
      this.scheduleIdleProbe();
    } else if (result.outcome === 'auth') {
      this.onProbeAuth(result);
    } else {
      this.onProbeFailed(result, result.outcome === 'timeout' ? 'timeout' : 'unreachable');
    }
  }

  private onViolation(violation: Violation, result: ProbeResult): void {
    const message = describeViolation(result);
    const error: ServerError = { kind: 'protocol-violation', message };
    this.consecutiveFailures += 1;
    if (this.pendingViolation === violation) {
      // The same answer from a fresh connection: a property of the server, not of a connection. Reconnecting again
      // would not help, so stop and watch it with a request it does answer.
      this.pendingViolation = null;
      this.markNonConformant(message, error);
      this.scheduleIdleProbe();
      return;
    }
    this.pendingViolation = violation;
    this.context.logger.warn(this.redact(`${this.config.name}: protocol violation: ${message}; reconnecting once`));
    this.teardown();
    this.transition('suspect', `protocol violation: ${message}; reconnecting once`, error);
    this.verifyOnConnect = true;
    this.scheduleBackoffReconnect();
  }

  private markNonConformant(reason: string, error: ServerError): void {
    this.nonConformantReason = reason;
    this.context.logger.warn(
      this.redact(`${this.config.name}: non-conformant (${reason}); probing with ${FALLBACK_PROBE_METHOD} instead of reconnecting`),
    );
    this.transition('suspect', `non-conformant: ${reason}`, error);
  }

  private onProbeFailed(result: ProbeResult, kind: 'timeout' | 'unreachable'): void {
    const timeoutMs = probeTimeoutFor(this.context.settings());
    const message =
      kind === 'timeout'
        ? `no answer to ${result.method} within ${timeoutMs} ms`
        : `${result.method} failed: ${result.detail ?? result.outcome}`;
    this.consecutiveFailures += 1;
    this.logError(`${this.config.name}: ${message}`);
    // A timed-out probe is never retried: a stalled message loop would hide behind the retry. The connection goes.
    this.teardown();
    this.transition(this.failedState(), message, { kind, message, phase: 'probe' });
    this.verifyOnConnect = true;
    this.scheduleBackoffReconnect();
  }

  private onProbeAuth(result: ProbeResult): void {
    const message = `${result.method} was refused: credentials needed${result.detail ? ` (${result.detail})` : ''}`;
    this.consecutiveFailures += 1;
    this.logError(`${this.config.name}: ${message}`);
    this.teardown();
    this.transition('auth-required', message, { kind: 'auth', message, phase: 'probe' });
    this.scheduleAuthRetry();
  }

  private onAlive(): void {
    this.consecutiveFailures = 0;
    this.backoffAttempt = 0;
    if (this.connectedAt !== null && this.flaps.noteHealthy(this.now(), this.connectedAt, this.context.settings().flapping)) {
      this.context.logger.info(this.redact(`${this.config.name}: stable again, no longer flapping`));
    }
  }

  private sendProbe(connection: Connection, method: ProbeMethod | undefined): Promise<ProbeResult> {
    const timeoutMs = probeTimeoutFor(this.context.settings());
    const expected = method ?? defaultProbeMethod(connection.era);
    const startedAt = this.now();
    const work = connection
      .probe(timeoutMs, method)
      .catch((error: unknown): ProbeResult => ({ method: expected, outcome: 'failed', detail: String(error) }));
    const guarded = guardWithTimer<ProbeResult>(this.context.clock, work, timeoutMs + PROBE_GUARD_GRACE_MS, () => ({
      value: { method: expected, outcome: 'timeout', detail: `no answer within ${timeoutMs} ms` },
    }));
    this.pendingProbe = guarded;
    return guarded.promise.then((result) => {
      if (this.pendingProbe === guarded) {
        this.pendingProbe = null;
      }
      const gotAnswer = answered(result.outcome) || result.outcome === 'auth';
      // A probe's detail quotes what the server said, and servers echo what they were given (headers, env, argv).
      const clean = result.detail !== undefined ? { ...result, detail: this.redact(result.detail) } : result;
      return clean.rttMs === undefined && gotAnswer ? { ...clean, rttMs: this.now() - startedAt } : clean;
    });
  }

  private finishProbe(result: ProbeResult): void {
    this.lastProbeAt = this.context.clock.wall();
    if (result.rttMs !== undefined && answered(result.outcome)) {
      this.lastRttMs = result.rttMs;
      this.noteSlowness(this.slowness.record(result.rttMs, slowThresholdFor(this.config, this.context.settings()), this.context.settings().slow ?? defaultSlowSettings));
    } else {
      this.noteSlowness(this.slowness.reset());
    }
    this.stats.record({
      at: this.lastProbeAt,
      method: result.method,
      outcome: result.outcome,
      ...(result.rttMs !== undefined ? { rttMs: result.rttMs } : {}),
    });
    const rtt = result.rttMs !== undefined ? ` ${Math.round(result.rttMs)} ms` : '';
    const detail = result.detail ? ` (${result.detail})` : '';
    this.context.logger.trace(
      this.redact(`probe ${this.config.name} id=${result.requestId ?? '-'} ${result.method} ${result.outcome}${rtt}${detail}`),
    );
    // The snapshot (percentiles over the probe history) is built only if a listener reads it: at a thousand servers
    // most probe events are counted, not rendered.
    const snapshot = () => this.status();
    this.emit({ type: 'probe', id: this.id, result, get status() { return snapshot(); } });
  }

  /**
   * Down, unless the failure threshold allows a server that was up a few failures before it is called down: it is
   * reconnected either way (a timed-out probe is never retried), only shown as reconnecting meanwhile.
   */
  private recoveryThreshold(): number {
    return Math.max(1, Math.floor(this.context.settings().successesBeforeUp ?? 1));
  }

  private failedState(): ServerState {
    const threshold = Math.max(1, this.context.settings().failuresBeforeDown ?? 1);
    const wasUp = this.state === 'up' || (this.state === 'connecting' && this.everEstablished);
    return wasUp && this.consecutiveFailures < threshold ? 'connecting' : 'down';
  }

  private noteSlowness(change: 'entered' | 'cleared' | null): void {
    if (change === 'entered') {
      const threshold = slowThresholdFor(this.config, this.context.settings());
      this.context.logger.warn(this.redact(`${this.config.name}: slow: answers keep taking longer than ${threshold} ms`));
    } else if (change === 'cleared') {
      this.context.logger.info(this.redact(`${this.config.name}: no longer slow`));
    }
  }

  private connectFailureResult(): ProbeResult {
    const kind = this.lastError?.kind;
    const outcome: ProbeOutcome = kind === 'auth' ? 'auth' : kind === 'timeout' ? 'timeout' : 'failed';
    return {
      method: this.era === 'modern' ? 'server/discover' : 'initialize',
      outcome,
      detail: this.lastError?.message ?? 'not connected',
    };
  }

  // --- timers -----------------------------------------------------------------------------------------------------

  /** The probe is due once the connection has been idle for the interval; traffic in between pushes it back. */
  private scheduleIdleProbe(): void {
    this.clearIdleTimer();
    if (!this.context.isStarted() || this.disposed || !this.connection) {
      return;
    }
    const interval = probeIntervalFor(this.config, this.context.settings());
    const wait = Math.max(0, this.lastActivityAt + interval - this.now());
    this.idleTimer = this.context.clock.setTimeout(() => {
      this.idleTimer = null;
      if (!this.connection) {
        return;
      }
      if (this.now() - this.lastActivityAt >= interval) {
        void this.probeNow();
      } else {
        this.scheduleIdleProbe();
      }
    }, wait);
  }

  private scheduleBackoffReconnect(): void {
    if (!this.canReconnectOnItsOwn()) {
      return;
    }
    const delay = backoffDelay(this.backoffAttempt, this.context.settings().backoff, this.context.random);
    this.backoffAttempt += 1;
    this.scheduleReconnect(delay);
  }

  /** Credentials do not appear by themselves: retry rarely (at the backoff ceiling), or when the user asks. */
  private scheduleAuthRetry(): void {
    if (this.canReconnectOnItsOwn()) {
      this.scheduleReconnect(this.context.settings().backoff.maxMs);
    }
  }

  private canReconnectOnItsOwn(): boolean {
    return this.context.isStarted() && !this.disposed && !this.gate;
  }

  private scheduleReconnect(delayMs: number): void {
    this.clearReconnectTimer();
    this.context.logger.info(this.redact(`${this.config.name}: reconnecting in ${Math.round(delayMs)} ms`));
    this.reconnectTimer = this.context.clock.setTimeout(() => {
      this.reconnectTimer = null;
      void this.connectNow('reconnecting');
    }, delayMs);
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) {
      this.context.clock.clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
  }

  private clearReconnectTimer(): void {
    if (this.reconnectTimer) {
      this.context.clock.clearTimeout(this.reconnectTimer);
      this.reconnectTimer = null;
    }
  }

  // --- state ------------------------------------------------------------------------------------------------------

  /** Drops the current connection (or attempt) and every timer tied to it. */
  private teardown(): void {
    this.generation += 1;
    this.clearIdleTimer();
    this.clearReconnectTimer();
    this.connectAbort?.abort();
    this.connectAbort = null;
    this.pendingConnect?.cancel({ error: new ConnectError('unreachable', 'connect abandoned') });
    this.pendingConnect = null;
    this.connectAttempt = null;
    this.pendingProbe?.cancel({ value: { method: 'ping', outcome: 'closed', detail: 'connection closed' } });
    this.pendingProbe = null;
    this.probeInFlight = null;
    const connection = this.connection;
    this.connection = null;
    this.connectedAt = null;
    this.pid = null;
    if (connection) {
      const previous = this.closing;
      const closed = this.closeQuietly(connection);
      this.closing = Promise.all([previous, closed]).then(() => undefined);
    }
  }

  private waitForClose(): Promise<void> {
    return guardWithTimer(this.context.clock, this.closing, CLOSE_WAIT_LIMIT_MS, () => {
      this.context.logger.warn(this.redact(`${this.config.name}: the previous connection did not close within ${CLOSE_WAIT_LIMIT_MS} ms`));
      return { value: undefined };
    }).promise;
  }

  private closeQuietly(connection: Connection): Promise<void> {
    return connection
      .close()
      .catch((error: unknown) => this.context.logger.warn(this.redact(`${this.config.name}: close failed: ${String(error)}`)));
  }

  private recordRestart(): void {
    this.restarts += 1;
    this.stats.recordRestart(this.context.clock.wall());
    const settings = this.context.settings().flapping;
    if (this.flaps.recordRestart(this.now(), settings)) {
      this.context.logger.warn(
        this.redact(`${this.config.name}: flapping: ${settings.restarts} or more restarts within ${settings.windowMs} ms`),
      );
    }
  }

  /** `error` undefined keeps the last error: it stays visible after recovery (e.g. the exit code of the last crash). */
  private transition(to: ServerState, reason: string, error?: ServerError | null): void {
    if (error !== undefined) {
      this.lastError = error === null ? null : this.redactError(error);
    }
    if (to === this.state) {
      return;
    }
    const from = this.state;
    this.state = to;
    this.lastStateChangeAt = this.context.clock.wall();
    this.stats.noteUp(to === 'up', this.now());
    const cleanReason = this.redact(reason);
    this.context.logger.info(`${this.redact(this.config.name)}: ${from} -> ${to} (${cleanReason})`);
    this.emit({ type: 'state', id: this.id, from, to, reason: cleanReason, status: this.status() });
  }

  private redactError(error: ServerError): ServerError {
    return {
      ...error,
      message: this.redact(error.message),
      ...(error.stderrTail !== undefined ? { stderrTail: this.redact(error.stderrTail) } : {}),
      ...(error.searchPath !== undefined ? { searchPath: this.redact(error.searchPath) } : {}),
      ...(error.proxy !== undefined ? { proxy: this.redact(error.proxy) } : {}),
      ...(error.authenticate !== undefined ? { authenticate: this.redact(error.authenticate) } : {}),
    };
  }

  private logError(message: string): void {
    this.context.logger.error(this.redact(message));
  }

  private emit(event: MonitorEvent): void {
    if (!this.disposed) {
      this.context.emit(event);
    }
  }

  private now(): number {
    return this.context.clock.monotonic();
  }
}
