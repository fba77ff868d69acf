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
import type { MonitorEvent, MonitorMode, MonitorSettings } from '../monitorTypes';
import { backoffDelay } from './backoff';
import { FlapDetector } from './flapping';
import type { Gate } from './gate';
import { guardWithTimer, type Guarded } from './guard';
import { InventoryTracker } from './inventoryTracker';
import { classifyFailure } from '../causes';
import { defaultSlowSettings, SlowDetector, slowThresholdFor } from './slowness';
import type { ToolsBaseline } from '../inventory/types';
import { defaultInventorySettings } from '../monitorTypes';
import { checkIntervalFor, modeFor, probeIntervalFor, probeTimeoutFor } from './intervals';
import { ProbeStatistics } from './probeStats';
import { makeRedactor } from '../redact';

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
/**
 * How long a non-conformant verdict (ping ignored or answered wrongly) stands before the era's probe is tried again:
 * a brief stall must not brand a server for the rest of the session, and one extra request per ten minutes is cheap.
 */
export const PING_RETEST_INTERVAL_MS = 10 * 60_000;

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
  /** How long the current connection took to open, until a probe on it answers (then the probe's RTT is shown). */
  private handshakeMs: number | null = null;
  private nextRetryAt: number | null = null;
  private probesOnConnection = 0;
  private everEstablished = false;
  private backoffAttempt = 0;
  /** After a failed probe the fresh connection is checked at once rather than after a full idle interval. */
  private verifyOnConnect = false;
  /** The violation that caused the one reconnect; seeing it again on the fresh connection means non-conformant. */
  private pendingViolation: Violation | null = null;
  private nonConformantReason: string | null = null;
  /** When a non-conformant server's own probe is tried again (monotonic ms). */
  private pingRetestAt = 0;
  private firstProbeTimeoutStreak = 0;
  /** Probes still to be answered in a row before a recovering server is shown up again. */
  private recoveringLeft = 0;
  private ignoredPingChecked = false;
  private disposed = false;
  /** watch keeps the connection; check connects, probes once and disconnects until the next check. */
  private mode: MonitorMode;

  constructor(
    private currentConfig: ServerConfig,
    /** The diagnostic that keeps this server in `config-error`, part of its identity for reconciliation. */
    readonly configError: ServerError | null,
    private gate: Gate | null,
    private readonly context: MonitorContext,
  ) {
    this.redact = makeRedactor(currentConfig.secretValues, context.redact);
    this.state = gate?.state ?? 'idle';
    this.lastError = gate?.error ? this.redactError(gate.error) : null;
    this.lastStateChangeAt = context.clock.wall();
    this.inventory = new InventoryTracker(context.clock, {
      listed: (inventory) => {
        if (inventory.problems.length) {
          context.logger.warn(this.redact(`${this.config.name}: listing incomplete: ${inventory.problems.join('; ')}`));
        }
        this.emit({ type: 'inventory', id: this.id, status: this.status() });
      },
      drifted: (drift, summary) => {
        context.logger.warn(this.redact(`${this.config.name}: tools changed since the accepted baseline: ${summary}`));
        this.emit({ type: 'tools-changed', id: this.id, drift, status: this.status() });
      },
    });
    this.mode = modeFor(currentConfig, context.settings());
  }

  get config(): ServerConfig {
    return this.currentConfig;
  }

  get id(): string {
    return this.config.id;
  }

  /** The same definition, moved in its file (lines added above it): status follows, the connection stays. */
  relocate(config: ServerConfig): void {
    this.currentConfig = config;
  }

  get isGated(): boolean {
    return this.gate !== null;
  }

  /** Another process runs this server: views show its status, user actions go there. */
  get watchedElsewhere(): boolean {
    return this.gate?.elsewhere === true;
  }

  /** The guard's name when the entry runs through `mcp-health guard`: never connected here, the guard reports. */
  get guardName(): string | null {
    return this.gate?.guarded ?? null;
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
      handshakeMs: this.handshakeMs,
      nextRetryAt: this.state === 'down' || this.state === 'auth-required' ? this.nextRetryAt : null,
      cause: classifyFailure({
        state: this.state,
        error: this.lastError,
        transport: this.config.transport,
        command: this.config.command,
        nonConformant: this.nonConformantReason !== null,
      }),
      inventory: this.inventory.inventory,
      drift: this.inventory.currentDrift,
      certificate: this.inventory.certificate,
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

  /** Settings changed: the idle timer follows the new interval; nothing reconnects unless watch/check changed. */
  retime(): void {
    const mode = modeFor(this.config, this.context.settings());
    if (mode !== this.mode) {
      this.mode = mode;
      if (!this.gate && !this.disposed) {
        // Start over in the new mode: check closes after one probe, watch stays connected.
        this.teardown();
        if (this.context.isStarted()) {
          void this.connectNow(`mode ${mode}`);
        }
      }
      return;
    }
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

  /** `retry`: an automatic reconnect of a failed server, which stays `down` meanwhile rather than flicker through `connecting`. */
  private connectNow(reason: string, retry = false): Promise<void> {
    if (this.disposed || this.gate || this.connection) {
      return Promise.resolve();
    }
    if (this.connectAttempt) {
      return this.connectAttempt;
    }
    this.clearReconnectTimer();
    const attempt: Promise<void> = this.runConnect(reason, retry)
      .catch((error: unknown) => this.logError(`connect of ${this.config.name} failed unexpectedly: ${String(error)}`))
      .finally(() => {
        if (this.connectAttempt === attempt) {
          this.connectAttempt = null;
        }
      });
    this.connectAttempt = attempt;
    return attempt;
  }

  private async runConnect(reason: string, retry: boolean): Promise<void> {
    // Never two children of one server at once: the previous one must be gone first.
    await this.waitForClose();
    if (this.disposed || this.gate || this.connection) {
      return;
    }
    const generation = ++this.generation;
    this.stats.startObserving(this.now());
    if (retry && (this.state === 'down' || this.state === 'auth-required')) {
      this.context.logger.info(this.redact(`${this.config.name}: ${reason}`));
      this.emit({ type: 'status', id: this.id, status: this.status(), reconnecting: true });
    } else {
      this.transition('connecting', reason);
    }
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
    const startedAt = this.now();
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
    this.attach(connection, generation, this.now() - startedAt);
  }

  private attach(connection: Connection, generation: number, handshakeMs: number): void {
    this.connection = connection;
    this.handshakeMs = handshakeMs;
    this.nextRetryAt = null;
    this.era = connection.era;
    this.protocolVersion = connection.protocolVersion;
    this.serverInfo = connection.serverInfo && this.redactInfo(connection.serverInfo);
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
    // After a failure a handshake alone proves nothing (a crash loop answers initialize every time): a probe must.
    const afterFailure = this.consecutiveFailures > 0;
    if (this.everEstablished) {
      this.recordRestart();
    }
    this.everEstablished = true;

    const version = this.protocolVersion ? ` ${this.protocolVersion}` : '';
    if (this.pendingViolation) {
      this.transition('suspect', `reconnected (${connection.era}${version}); re-checking after a protocol violation`);
    } else if (this.nonConformantReason !== null) {
      this.transition('suspect', `connected (${connection.era}${version}); non-conformant: ${this.nonConformantReason}`);
    } else if (afterFailure) {
      // With a recovery threshold above one, that many probes in a row must answer before it counts as up again.
      this.recoveringLeft = this.recoveryThreshold();
      const waitingFor = this.recoveringLeft > 1 ? `recovering: 0/${this.recoveringLeft} probes answered` : 'waiting for the first probe to answer';
      this.transition('verifying', `connected (${connection.era}${version}); ${waitingFor}`);
    } else {
      this.recoveringLeft = 0;
      this.transition('up', `connected (${connection.era}${version})`);
    }

    // Once per connection, beside (never inside) the keepalive path.
    this.inventory.start(connection, this.context.settings().inventory ?? defaultInventorySettings, () => generation === this.generation && !this.disposed);

    const verifyNow = this.verifyOnConnect || this.state === 'verifying';
    this.verifyOnConnect = false;
    if (this.mode === 'check') {
      void this.checkOnce(generation);
      return;
    }
    if (!this.context.isStarted()) {
      return;
    }
    if (verifyNow) {
      void this.probeNow();
    } else {
      this.scheduleIdleProbe();
    }
  }

  /** Check mode: one probe on the fresh connection, then close it and come back at the check interval. */
  private async checkOnce(generation: number): Promise<void> {
    await this.probeNow();
    if (generation !== this.generation || this.disposed || !this.connection) {
      return; // a failed probe already tore the connection down and scheduled the next attempt
    }
    this.teardown();
    this.context.logger.info(this.redact(`${this.config.name}: checked; disconnected until the next check`));
    if (this.canReconnectOnItsOwn()) {
      this.scheduleReconnect(checkIntervalFor(this.context.settings()));
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

  /** Sends one probe and records it, unless its connection was replaced or the monitor disposed meanwhile (stale). */
  private async sendAndRecord(
    connection: Connection,
    generation: number,
    method: ProbeMethod | undefined,
  ): Promise<{ readonly result: ProbeResult; readonly stale: boolean }> {
    const result = await this.sendProbe(connection, method);
    const stale = generation !== this.generation || this.disposed;
    if (!stale) {
      this.lastActivityAt = Math.max(this.lastActivityAt, this.now());
      this.finishProbe(result);
    }
    return { result, stale };
  }

  private async probeCycle(connection: Connection, generation: number): Promise<ProbeResult> {
    if (this.nonConformantReason !== null && this.now() >= this.pingRetestAt) {
      return this.retestDefaultProbe(connection, generation);
    }
    const method = this.nonConformantReason !== null ? FALLBACK_PROBE_METHOD : undefined;
    const firstOnConnection = this.probesOnConnection === 0;
    this.probesOnConnection += 1;
    const { result, stale } = await this.sendAndRecord(connection, generation, method);
    if (stale) {
      return result;
    }
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
    const { result: fallback, stale } = await this.sendAndRecord(connection, generation, FALLBACK_PROBE_METHOD);
    if (stale) {
      return fallback;
    }
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

  /**
   * The era's own probe, tried again on a non-conformant server. Answered properly: back to normal probing. Otherwise
   * the verdict stands and the fallback probe, as always, decides whether the server is alive; nothing reconnects.
   */
  private async retestDefaultProbe(connection: Connection, generation: number): Promise<ProbeResult> {
    this.pingRetestAt = this.now() + PING_RETEST_INTERVAL_MS;
    this.probesOnConnection += 1;
    const { result, stale } = await this.sendAndRecord(connection, generation, undefined);
    if (stale) {
      return result;
    }
    if (result.outcome === 'ok') {
      this.context.logger.info(this.redact(`${this.config.name}: ${result.method} answered properly again; no longer non-conformant`));
      this.nonConformantReason = null;
      this.afterDefaultProbe(result);
      return result;
    }
    const fallback = await this.sendAndRecord(connection, generation, FALLBACK_PROBE_METHOD);
    if (!fallback.stale) {
      this.afterFallbackProbe(fallback.result);
    }
    return fallback.result;
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
    this.pingRetestAt = this.now() + PING_RETEST_INTERVAL_MS;
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
    this.stats.noteVerified();
    this.consecutiveFailures = 0;
    if (this.connectedAt !== null && this.flaps.noteHealthy(this.now(), this.connectedAt, this.context.settings().flapping)) {
      this.context.logger.info(this.redact(`${this.config.name}: stable again, no longer flapping`));
    }
    // A crash loop answers a probe between crashes; resetting on that would restart it at the shortest delay
    // forever. A flapping server's backoff resets only once a stable stretch has cleared the flag.
    if (!this.flaps.flapping) {
      this.backoffAttempt = 0;
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
    if (answered(result.outcome)) {
      this.handshakeMs = null;
    }
    // At info, the channel's default level: a user who opens the ping log must see that pings happen.
    const rtt = result.rttMs !== undefined ? ` in ${Math.round(result.rttMs * 10) / 10} ms` : '';
    const detail = result.detail ? ` (${result.detail})` : '';
    this.context.logger.info(
      this.redact(`probe ${this.config.name}: ${result.method} id=${result.requestId ?? '-'} ${result.outcome}${rtt}${detail}`),
    );
    // The snapshot (percentiles over the probe history) is built only if a listener reads it: at a thousand servers
    // most probe events are counted, not rendered.
    const snapshot = () => this.status();
    this.emit({ type: 'probe', id: this.id, result, get status() { return snapshot(); } });
  }

  private recoveryThreshold(): number {
    return Math.max(1, Math.floor(this.context.settings().successesBeforeUp ?? 1));
  }

  /**
   * Down, unless the failure threshold allows a server that was up a few failures before it is called down: it is
   * reconnected either way (a timed-out probe is never retried), only shown as reconnecting meanwhile. A reconnection
   * still verifying its first probe is part of that same stretch.
   */
  private failedState(): ServerState {
    const threshold = Math.max(1, this.context.settings().failuresBeforeDown ?? 1);
    const wasUp = this.state === 'up' || ((this.state === 'connecting' || this.state === 'verifying') && this.everEstablished);
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
    if (this.mode === 'check') {
      // A server the user wants checked rarely is not restarted in a loop when it fails: the next check will tell.
      this.scheduleReconnect(checkIntervalFor(this.context.settings()));
      return;
    }
    const delay = backoffDelay(this.backoffAttempt, this.context.settings().backoff, this.context.random);
    this.backoffAttempt += 1;
    this.scheduleReconnect(delay);
  }

  /** Credentials do not appear by themselves: retry rarely (at the backoff ceiling), or when the user asks. */
  private scheduleAuthRetry(): void {
    if (this.canReconnectOnItsOwn()) {
      this.scheduleReconnect(this.mode === 'check' ? checkIntervalFor(this.context.settings()) : this.context.settings().backoff.maxMs);
    }
  }

  private canReconnectOnItsOwn(): boolean {
    return this.context.isStarted() && !this.disposed && !this.gate;
  }

  private scheduleReconnect(delayMs: number): void {
    this.clearReconnectTimer();
    this.context.logger.info(this.redact(`${this.config.name}: reconnecting in ${Math.round(delayMs)} ms`));
    this.nextRetryAt = this.context.clock.wall() + delayMs;
    this.reconnectTimer = this.context.clock.setTimeout(() => {
      this.reconnectTimer = null;
      void this.connectNow('retrying the connection', true);
    }, delayMs);
    // A failed retry leaves the state `down` (no state event): the views still need the new retry time.
    this.emit({ type: 'status', id: this.id, status: this.status() });
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
      this.nextRetryAt = null;
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
    this.handshakeMs = null;
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

  /** Servers echo what they were given, and serverInfo is text like any other that leaves the core. */
  private redactInfo(info: ServerInfo): ServerInfo {
    return {
      ...info,
      name: this.redact(info.name),
      ...(info.version !== undefined ? { version: this.redact(info.version) } : {}),
      ...(info.title !== undefined ? { title: this.redact(info.title) } : {}),
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
