// Servers this process lists but does not run: a guarded entry (its guards run the server and report) and a server
// another window leads (a status source reports). Their local monitor is parked; each one's RemoteSource
// (remoteSource.ts) answers status, Ping and Reconnect. The registry asks here first and falls back to the monitor.

import type { Clock } from '../clock';
import type { GuardReports, GuardRestartOutcome } from '../guardReport';
import type { Logger } from '../logger';
import { followedWindow, GuardSource, type RemoteSource } from './remoteSource';
import type { ServerMonitor } from './serverMonitor';
import type { StatusSource } from './statusSource';

export interface ElsewhereDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly guards?: GuardReports;
  /** What the reports say changed: views re-read the servers. */
  changed(): void;
}

export class Elsewhere {
  private current: StatusSource | null = null;
  private followed: RemoteSource | null = null;
  private sourceSubscription: (() => void) | null = null;
  private readonly guardSource: GuardSource;
  private readonly guardSubscription: (() => void) | null;

  constructor(private readonly deps: ElsewhereDeps) {
    this.guardSource = new GuardSource(deps.guards, deps.clock, deps.logger, () => deps.changed());
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
    this.followed = source ? followedWindow(source, this.deps.clock) : null;
    if (source) this.sourceSubscription = source.onDidChange(() => this.deps.changed());
    return true;
  }

  /** Who runs a parked monitor's server; null for a server run here. */
  sourceFor(monitor: ServerMonitor): RemoteSource | null {
    if (monitor.guardName !== null) return this.guardSource;
    return monitor.watchedElsewhere ? this.followed : null;
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

  restartGuarded(guardName: string): Promise<readonly GuardRestartOutcome[]> {
    return this.guardSource.restart(guardName);
  }

  dispose(): void {
    this.setSource(null);
    this.guardSubscription?.();
    this.deps.guards?.dispose();
  }
}
