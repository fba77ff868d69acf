// The single source of truth every view subscribes to: one ServerMonitor per server, reconciled on re-discovery.

import { guardedName } from '../guarded';
import type { GuardRestartOutcome } from '../guardReport';
import type { ToolsBaseline } from '../inventory/types';
import type { ConfigDiagnostic, ProbeResult, ServerConfig, ServerError, ServerStatus } from '../model';
import type { MonitorEvent, MonitorSettings, Unsubscribe } from '../monitorTypes';
import type { RegistryDeps, TrustAwareRegistry } from './registryTypes';
import { deepEqual } from './deepEqual';
import { gateFor, type Gate } from './gate';
import { ConnectSlots, DEFAULT_CONCURRENT_STARTS } from './connectSlots';
import { modeFor } from './intervals';
import { desiredServers, reconcile } from './reconcile';
import { ServerMonitor, type MonitorContext } from './serverMonitor';
import { Elsewhere } from './elsewhere';
import type { StatusSource } from './statusSource';
import { resumeAfterSuspend, suspendAwareClock, type Suspension } from './suspend';

export type { RegistryDeps, TrustAwareRegistry } from './registryTypes';

export class Registry implements TrustAwareRegistry {
  private monitors = new Map<string, ServerMonitor>();
  private currentDiagnostics: readonly ConfigDiagnostic[] = [];
  private readonly userDisabled = new Set<string>();
  private readonly listeners = new Set<(event: MonitorEvent) => void>();
  /** Monitors replaced or removed but maybe still closing; dispose() waits for them too. */
  private readonly retiring = new Set<Promise<void>>();
  private settings: MonitorSettings;
  private trusted: boolean;
  private readonly elsewhere: Elsewhere;
  private started = false;
  private disposed: Promise<void> | null = null;
  private readonly context: MonitorContext;

  constructor(private readonly deps: RegistryDeps) {
    this.settings = deps.settings;
    this.trusted = deps.workspaceTrusted ?? true;
    this.context = {
      connector: deps.connector,
      // Every monitor timer is judged as it fires: one far too late means the machine slept (see suspend.ts).
      clock: suspendAwareClock(deps.clock, (suspension) => this.resumed(suspension)),
      logger: deps.logger,
      random: deps.random ?? Math.random,
      ...(deps.redact ? { redact: deps.redact } : {}),
      connectSlots: new ConnectSlots(deps.maxConcurrentConnects),
      startSlots: new ConnectSlots(deps.maxConcurrentStarts ?? DEFAULT_CONCURRENT_STARTS),
      settings: () => this.settings,
      isStarted: () => this.started && !this.disposed,
      emit: (event) => {
        // A mirrored or guarded server's local monitor only parks and unparks; what views show comes from elsewhere.
        const monitor = event.type !== 'servers' && event.type !== 'wake' ? this.monitors.get(event.id) : undefined;
        if (monitor && this.elsewhere.parks(monitor)) {
          return;
        }
        this.emit(event);
      },
    };
    this.elsewhere = new Elsewhere({
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.guards ? { guards: deps.guards } : {}),
      changed: () => this.emit({ type: 'servers' }),
    });
  }

  setServers(servers: readonly ServerConfig[], diagnostics: readonly ConfigDiagnostic[]): void {
    if (this.disposed) {
      return;
    }
    const { next, added, retired, changed } = reconcile(
      this.monitors,
      desiredServers(servers, diagnostics),
      ({ config, configError }, replaced) => {
        const monitor = new ServerMonitor(config, configError, this.gateOf(config, configError), this.context);
        // An edited entry is still the same server: its tools are still judged against what was accepted.
        const baseline = replaced?.toolsBaseline() ?? null;
        if (baseline) monitor.setToolsBaseline(baseline);
        return monitor;
      },
    );
    for (const monitor of retired) {
      this.retire(monitor);
    }
    const diagnosticsChanged = !deepEqual(this.currentDiagnostics, diagnostics);
    this.monitors = next;
    this.currentDiagnostics = [...diagnostics];
    if (changed || diagnosticsChanged) {
      this.emit({ type: 'servers' });
    }
    if (this.started) {
      for (const monitor of added) {
        monitor.start();
      }
    }
    this.wantGuards();
  }

  private wantGuards(): void {
    this.elsewhere.want(this.monitors.values(), this.started && !this.disposed);
  }

  list(): readonly ServerStatus[] {
    return [...this.monitors.values()].map((monitor) => this.statusOf(monitor));
  }

  get(id: string): ServerStatus | undefined {
    const monitor = this.monitors.get(id);
    return monitor ? this.statusOf(monitor) : undefined;
  }

  private statusOf(monitor: ServerMonitor): ServerStatus {
    return this.elsewhere.sourceFor(monitor)?.status(monitor.config) ?? monitor.status();
  }

  diagnostics(): readonly ConfigDiagnostic[] {
    return this.currentDiagnostics;
  }

  onEvent(listener: (event: MonitorEvent) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  start(): void {
    if (this.disposed || this.started) {
      return;
    }
    this.started = true;
    for (const monitor of this.monitors.values()) {
      monitor.start();
    }
    this.wantGuards();
  }

  async pingNow(id?: string): Promise<ReadonlyMap<string, ProbeResult>> {
    const results = new Map<string, ProbeResult>();
    if (this.disposed) {
      return results;
    }
    await Promise.all(
      this.select(id).map(async (monitor) => {
        const remote = this.elsewhere.sourceFor(monitor);
        const result = await (remote ? remote.pingNow(monitor.config) : monitor.pingNow());
        if (result) {
          results.set(monitor.id, result);
        }
      }),
    );
    return results;
  }

  async restartGuarded(id: string): Promise<readonly GuardRestartOutcome[] | null> {
    const guardName = this.monitors.get(id)?.guardName ?? null;
    if (this.disposed || guardName === null) return null;
    return this.elsewhere.restartGuarded(guardName);
  }

  async settleInventory(id?: string): Promise<void> {
    await Promise.all(this.select(id).map((monitor) => monitor.inventorySettled()));
  }

  setToolsBaseline(id: string, baseline: ToolsBaseline | null): void {
    const monitor = this.monitors.get(id);
    if (!monitor || this.disposed) {
      return;
    }
    monitor.setToolsBaseline(baseline);
    this.emit({ type: 'inventory', id, status: monitor.status() });
  }

  toolsBaseline(id: string): ToolsBaseline | null {
    return this.monitors.get(id)?.toolsBaseline() ?? null;
  }

  acceptToolsBaseline(id: string): ToolsBaseline | null {
    return this.disposed ? null : (this.monitors.get(id)?.acceptToolsBaseline() ?? null);
  }

  async reconnect(id?: string): Promise<void> {
    if (this.disposed) {
      return;
    }
    await Promise.all(
      this.select(id).map((monitor) => this.elsewhere.sourceFor(monitor)?.reconnect(monitor.config) ?? monitor.reconnect()),
    );
  }

  setEnabled(id: string, enabled: boolean): void {
    if (this.disposed) {
      return;
    }
    if (enabled) {
      this.userDisabled.delete(id);
    } else {
      this.userDisabled.add(id);
    }
    const monitor = this.monitors.get(id);
    monitor?.setGate(this.gateOf(monitor.config, monitor.configError));
    this.wantGuards();
  }

  setTrusted(workspaceAllowed: boolean): void {
    if (this.disposed || this.trusted === workspaceAllowed) {
      return;
    }
    this.trusted = workspaceAllowed;
    for (const monitor of this.monitors.values()) {
      monitor.setGate(this.gateOf(monitor.config, monitor.configError));
    }
    this.wantGuards();
  }

  isTrusted(): boolean {
    return this.trusted;
  }

  refreshGates(): void {
    if (this.disposed) {
      return;
    }
    for (const monitor of this.monitors.values()) {
      monitor.setGate(this.gateOf(monitor.config, monitor.configError));
    }
    this.wantGuards();
  }

  setStatusSource(source: StatusSource | null): void {
    if (this.disposed || !this.elsewhere.setSource(source)) {
      return;
    }
    this.refreshGates();
    this.emit({ type: 'servers' });
  }

  updateSettings(settings: MonitorSettings): void {
    if (this.disposed) {
      return;
    }
    this.settings = settings;
    for (const monitor of this.monitors.values()) {
      // A mode of `off` is a gate; watch <-> check is the monitor's own business.
      monitor.setGate(this.gateOf(monitor.config, monitor.configError));
      monitor.retime();
    }
    this.wantGuards();
  }

  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      this.elsewhere.dispose();
      const monitors = [...this.monitors.values()];
      this.monitors = new Map();
      await Promise.all([...monitors.map((monitor) => monitor.dispose()), ...this.retiring]);
      // The registry is the connector's only user: nothing can connect any more.
      this.deps.connector.dispose?.();
      this.listeners.clear();
    })();
    return this.disposed;
  }

  private resumed(suspension: Suspension): void {
    if (!this.started || this.disposed) return;
    resumeAfterSuspend(suspension, {
      monitors: () => this.monitors.values(),
      log: (line) => this.deps.logger.info(line),
      emit: () => this.emit({ type: 'wake', suspension }),
      probeAll: () => this.pingNow(),
    });
  }

  private select(id: string | undefined): ServerMonitor[] {
    if (id === undefined) {
      return [...this.monitors.values()];
    }
    const monitor = this.monitors.get(id);
    return monitor ? [monitor] : [];
  }

  private gateOf(config: ServerConfig, configError: ServerError | null): Gate | null {
    return gateFor(config, {
      configError,
      userDisabled: this.userDisabled.has(config.id),
      workspaceTrusted: this.trusted,
      consented: this.deps.consent ? this.deps.consent(config) : true,
      mode: modeFor(config, this.settings),
      ...(this.elsewhere.source?.covers(config) ? { runElsewhere: this.elsewhere.source.label } : {}),
      guardedAs: guardedName(config),
    });
  }

  private retire(monitor: ServerMonitor): void {
    const closing = monitor.dispose().catch((error: unknown) => {
      this.deps.logger.error(this.redact(`closing ${monitor.config.name} failed: ${String(error)}`));
    });
    this.retiring.add(closing);
    void closing.finally(() => this.retiring.delete(closing));
  }

  private emit(event: MonitorEvent): void {
    if (this.disposed) {
      return;
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        // One broken view must not stop the others or the monitor.
        this.deps.logger.error(this.redact(`monitor event listener failed: ${String(error)}`));
      }
    }
  }

  private redact(text: string): string {
    return this.deps.redact ? this.deps.redact(text) : text;
  }
}
