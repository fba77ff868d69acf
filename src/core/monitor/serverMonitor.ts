// One server's monitor, following protocol.md: it answers the registry and wires parts that each live in a file of
// their own. The connection lifetime opens and drops connections, the probe policy judges each answer, the health
// record keeps what is shown; keepalive times the probes on an open connection, the failure course decides where a
// failure leads and the reconnect schedule the next attempt (wired in serverParts.ts). What is left here: connecting
// and attaching a connection.

import type { Connection } from '../connection';
import type { ProbeResult, ServerConfig, ServerError, ServerStatus } from '../model';
import type { MonitorEvent, MonitorMode } from '../monitorTypes';
import type { ConnectionLifetime } from './connectionLifetime';
import type { FailureCourse } from './failureCourse';
import type { Gate } from './gate';
import type { HealthRecord } from './healthRecord';
import type { InventoryTracker } from './inventoryTracker';
import type { ToolsBaseline } from '../inventory/types';
import { defaultInventorySettings } from '../monitorTypes';
import { beginAttempt, firstStartPlan } from './firstStart';
import { modeFor } from './intervals';
import type { ReconnectSchedule } from './reconnectSchedule';
import type { DroppingVerdict, Keepalive } from './keepalive';
import { serverParts } from './serverParts';
import { makeRedactor } from '../redact';
import { say, type MonitorContext, type ServerScope } from './serverScope';
import type { Suspension } from './suspend';

export { FALLBACK_PROBE_METHOD, PING_RETEST_INTERVAL_MS } from './probePolicy';
export type { MonitorContext } from './serverScope';

export class ServerMonitor {
  private readonly scope: ServerScope;
  private readonly record: HealthRecord;
  private readonly lifetime: ConnectionLifetime;
  private readonly keepalive: Keepalive;
  private readonly inventory: InventoryTracker;
  private readonly retries: ReconnectSchedule;
  private readonly failures: FailureCourse;
  private disposed = false;
  /** The next attempt is a start, not a reconnect: nothing answered yet (or the user restarted a server given up on). */
  private startPending = true;
  /** watch keeps the connection; check connects, probes once and disconnects until the next check. */
  private mode: MonitorMode;

  constructor(
    private currentConfig: ServerConfig,
    /** The diagnostic that keeps this server in `config-error`, part of its identity for reconciliation. */
    readonly configError: ServerError | null,
    private gate: Gate | null,
    private readonly context: MonitorContext,
  ) {
    this.scope = {
      clock: context.clock,
      logger: context.logger,
      redact: makeRedactor(currentConfig.secretValues, context.redact),
      config: () => this.config,
      settings: () => context.settings(),
    };
    const parts = serverParts(
      this.scope,
      context,
      { state: gate?.state ?? 'idle', error: gate?.error ?? null },
      {
        id: () => this.id,
        status: () => this.status(),
        emit: (event) => this.emit(event),
        mode: () => this.mode,
        disposed: () => this.disposed,
        gated: () => this.gate !== null,
        drop: (verdict) => this.drop(verdict),
        reconnect: () => void this.connectNow('retrying the connection', true),
      },
    );
    ({ record: this.record, lifetime: this.lifetime, keepalive: this.keepalive, retries: this.retries } = parts);
    ({ failures: this.failures, inventory: this.inventory } = parts);
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
    return this.record.status({
      nonConformant: this.keepalive.nonConformant,
      inventory: this.inventory.inventory,
      drift: this.inventory.currentDrift,
      certificate: this.inventory.certificate,
    });
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
    if (this.gate || this.disposed || this.record.state === 'gave-up') {
      return;
    }
    if (this.lifetime.connection) {
      this.keepalive.scheduleIdleProbe();
    } else if (!this.lifetime.connecting && !this.retries.pending) {
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
      this.record.transition(gate.state, gate.reason, gate.error);
      return;
    }
    if (wasGated) {
      this.freshStart();
      this.record.transition('idle', 'may be contacted again', null);
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
    if (!this.lifetime.connection && this.record.state !== 'gave-up') {
      // A server given up on is started again by Restart (reconnect), never by a probe.
      await this.connectNow('probe requested');
    }
    if (!this.lifetime.connection) {
      return this.record.connectFailureResult();
    }
    return this.keepalive.probeNow();
  }

  async reconnect(): Promise<void> {
    if (this.gate || this.disposed) {
      return;
    }
    this.retries.resetBackoff();
    this.keepalive.forget();
    this.teardown();
    if (this.record.state === 'gave-up') this.freshStart();
    this.failures.forgetCrashes();
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
        if (this.record.state === 'gave-up') this.freshStart();
        this.failures.forgetCrashes();
        if (this.context.isStarted()) {
          void this.connectNow(`mode ${mode}`);
        }
      }
      return;
    }
    if (this.lifetime.connection && this.keepalive.idleProbeScheduled) {
      this.keepalive.scheduleIdleProbe();
    }
  }

  /** The machine slept: the gap leaves the uptime, and a session that expired meanwhile reconnects at the shortest delay. */
  resumed(suspension: Suspension): void {
    this.record.unobserved(suspension.monotonicFrom, suspension.monotonicTo);
    this.retries.resetBackoff();
  }

  async dispose(): Promise<void> {
    if (this.disposed) {
      return this.lifetime.closed;
    }
    this.disposed = true;
    this.teardown();
    await this.lifetime.waitForClose();
  }

  /** `retry`: an automatic reconnect of a failed server (see beginAttempt). */
  private connectNow(reason: string, retry = false): Promise<void> {
    if (this.disposed || this.gate || this.lifetime.connection) {
      return Promise.resolve();
    }
    return this.lifetime.connectOnce(() => {
      this.retries.clear();
      return this.runConnect(reason, retry).catch((error: unknown) =>
        this.context.logger.error(this.scope.redact(`connect of ${this.config.name} failed unexpectedly: ${String(error)}`)),
      );
    });
  }

  private async runConnect(reason: string, retry: boolean): Promise<void> {
    // A stdio server's first start gets the start-up budget and a start slot; later reconnects the connect timeout.
    const announce = () => this.emit({ type: 'status', id: this.id, status: this.status() });
    const start = this.startPending ? firstStartPlan(this.scope, this.record, announce, (text) => this.onStderr(text)) : null;
    const opened = await this.lifetime.attempt(
      () => this.record.lastEra,
      () => !this.disposed && !this.gate,
      () =>
        beginAttempt(this.scope, this.record, { reason, retry, start }, () =>
          this.emit({ type: 'status', id: this.id, status: this.status(), reconnecting: true }),
        ),
      start,
    );
    // Null: torn down meanwhile (disposed, gated, reconnect requested); the lifetime closed a late connection.
    if (opened && 'error' in opened) {
      this.failures.connectFailed(opened.error);
    } else if (opened) {
      this.attach(opened.connection, opened.generation, opened.handshakeMs);
    }
  }

  /** The next attempt starts the server afresh: a start-up budget again, no crashes counted. */
  private freshStart(): void {
    this.startPending = true;
    this.failures.forgetCrashes();
  }

  private attach(connection: Connection, generation: number, handshakeMs: number): void {
    this.lifetime.adopt(connection);
    this.record.connected(connection, handshakeMs);
    this.keepalive.watch(connection, generation);
    connection.onClose((info) => this.onConnectionClosed(info, generation));
    connection.onStderr((text) => this.onStderr(text));
    if (this.lifetime.connection !== connection) {
      return; // closed while the listeners were being attached
    }
    const afterFailure = this.record.consecutiveFailures > 0;
    this.record.established();
    this.startPending = false;
    const verdict = this.keepalive.judgeConnected({ era: connection.era, protocolVersion: connection.protocolVersion, afterFailure });
    this.record.transition(verdict.state, verdict.reason);

    // Once per connection, beside (never inside) the keepalive path.
    this.inventory.start(
      connection,
      this.context.settings().inventory ?? defaultInventorySettings,
      () => this.lifetime.isCurrent(generation) && !this.disposed,
    );

    if (this.mode === 'check') {
      void this.checkOnce(generation);
    } else if (this.context.isStarted()) {
      if (verdict.verifyNow) {
        void this.keepalive.probeNow();
      } else {
        this.keepalive.scheduleIdleProbe();
      }
    }
  }

  /** Check mode: one probe on the fresh connection, then close it and come back at the check interval. */
  private async checkOnce(generation: number): Promise<void> {
    await this.keepalive.probeNow();
    if (!this.lifetime.isCurrent(generation) || this.disposed || !this.lifetime.connection) {
      return; // a failed probe already tore the connection down and scheduled the next attempt
    }
    this.teardown();
    say(this.scope, 'info', 'checked; disconnected until the next check');
    this.retries.afterCheck();
  }

  private onConnectionClosed(end: ServerError, generation: number): void {
    if (!this.lifetime.isCurrent(generation) || this.disposed) {
      return;
    }
    this.teardown();
    this.failures.connectionEnded(end);
  }

  private onStderr(text: string): void {
    if (this.disposed) {
      return;
    }
    const clean = this.record.noteStderr(text);
    this.context.logger.debug(`${this.config.name} stderr: ${clean.trimEnd()}`);
    this.context.emit({ type: 'stderr', id: this.id, text: clean });
  }

  /** A probe verdict that drops the connection: a failed probe is never retried (a stalled loop would hide behind it). */
  private drop(verdict: DroppingVerdict): void {
    this.teardown();
    this.failures.dropped(verdict);
  }

  /** Drops the current connection (or attempt) and every timer tied to it. */
  private teardown(): void {
    this.keepalive.clearIdleTimer();
    this.retries.clear();
    this.lifetime.teardown();
    this.record.disconnected();
  }

  private emit(event: MonitorEvent): void {
    if (!this.disposed) {
      this.context.emit(event);
    }
  }
}
