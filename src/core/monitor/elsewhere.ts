// Servers this process lists but does not run: a guarded entry (its guard runs the server and reports) and a server
// another window leads (a status source reports). Their local monitor is parked; status, Ping and Reconnect go to
// whoever runs them. The registry asks here first and falls back to the local monitor.

import type { Clock } from '../clock';
import { guardedStatus, type GuardReports, type GuardRestartOutcome } from '../guardReport';
import type { Logger } from '../logger';
import type { ProbeResult, ServerStatus } from '../model';
import type { ServerMonitor } from './serverMonitor';
import { mirroredStatus, type StatusSource } from './statusSource';

export interface ElsewhereDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly guards?: GuardReports;
  /** What the reports say changed: views re-read the servers. */
  changed(): void;
}

export class Elsewhere {
  private current: StatusSource | null = null;
  private sourceSubscription: (() => void) | null = null;
  private readonly guardSubscription: (() => void) | null;

  constructor(private readonly deps: ElsewhereDeps) {
    this.guardSubscription = deps.guards?.onDidChange(() => deps.changed()) ?? null;
  }

  get source(): StatusSource | null {
    return this.current;
  }

  /** False when it is the source already set. */
  setSource(source: StatusSource | null): boolean {
    if (this.current === source) return false;
    this.sourceSubscription?.();
    this.sourceSubscription = null;
    this.current = source;
    if (source) this.sourceSubscription = source.onDidChange(() => this.deps.changed());
    return true;
  }

  /** A parked monitor's events are not shown: what views show comes from elsewhere. */
  parks(monitor: ServerMonitor): boolean {
    return monitor.watchedElsewhere || monitor.guardName !== null;
  }

  /** The guards' sockets are read only while a guarded entry is listed and monitoring runs. */
  want(monitors: Iterable<ServerMonitor>, active: boolean): void {
    const any = [...monitors].some((monitor) => monitor.guardName !== null);
    this.deps.guards?.setWanted(any && active);
  }

  /** The status reported from elsewhere; null for a server run here. */
  status(monitor: ServerMonitor): ServerStatus | null {
    const guardName = monitor.guardName;
    if (guardName !== null) {
      return guardedStatus(monitor.config, guardName, this.deps.guards?.reports() ?? [], this.deps.clock.wall());
    }
    if (monitor.watchedElsewhere && this.current) {
      return mirroredStatus(monitor.config, this.current.status(monitor.id), this.current.label, this.deps.clock.wall());
    }
    return null;
  }

  /** Ping where the server runs; undefined for a server run here. */
  ping(monitor: ServerMonitor): Promise<ProbeResult | null> | undefined {
    const guardName = monitor.guardName;
    if (guardName !== null) return this.pingGuarded(guardName);
    if (monitor.watchedElsewhere && this.current) return this.current.pingNow(monitor.id);
    return undefined;
  }

  /** Reconnect where the server runs; undefined for a server run here. */
  reconnect(monitor: ServerMonitor): Promise<unknown> | undefined {
    const guardName = monitor.guardName;
    if (guardName !== null) return this.restartGuarded(guardName);
    if (monitor.watchedElsewhere && this.current) return this.current.reconnect(monitor.id);
    return undefined;
  }

  async restartGuarded(guardName: string): Promise<readonly GuardRestartOutcome[]> {
    const outcomes = (await this.deps.guards?.restart?.(guardName)) ?? [];
    for (const outcome of outcomes) {
      this.deps.logger[outcome.restarting ? 'info' : 'warn'](`${guardName}: guard ${outcome.guardPid}: ${outcome.detail}`);
    }
    return outcomes;
  }

  dispose(): void {
    this.setSource(null);
    this.guardSubscription?.();
    this.deps.guards?.dispose();
  }

  /** A guarded entry's monitor is parked: its guard probes the real connection instead. */
  private async pingGuarded(guardName: string): Promise<ProbeResult | null> {
    const result = (await this.deps.guards?.probe?.(guardName)) ?? null;
    if (result) this.deps.changed();
    return result;
  }
}
