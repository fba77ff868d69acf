// "Status from elsewhere" as one interface: a server this process lists but another process runs. Two kinds exist:
// the window that leads the user-level servers (followed through a StatusSource, src/mcp/sharedServers.ts) and a
// guarded entry's guards (read through GuardReports, src/mcp/guardClient.ts). The local monitor of such a server is
// parked; its status, Ping and Reconnect are the source's.

import type { Clock } from '../clock';
import { guardedName } from '../guarded';
import { guardedStatus, type GuardReports, type GuardRestartOutcome } from '../guardReport';
import type { Logger } from '../logger';
import type { ProbeResult, ServerConfig, ServerStatus } from '../model';
import { mirroredStatus, type StatusSource } from './statusSource';

export interface RemoteSource {
  /** The status to show for this server, as the process that runs it reports it. */
  status(config: ServerConfig): ServerStatus;
  /** Ping where the server runs; null when it cannot be asked now. */
  pingNow(config: ServerConfig): Promise<ProbeResult | null>;
  /** Reconnect where the server runs. */
  reconnect(config: ServerConfig): Promise<void>;
}

/** The window that leads the user-level servers, as its follower sees it. */
export function followedWindow(source: StatusSource, clock: Clock): RemoteSource {
  return {
    status: (config) => mirroredStatus(config, source.status(config.id), source.label, clock.wall()),
    pingNow: (config) => source.pingNow(config.id),
    reconnect: (config) => source.reconnect(config.id),
  };
}

/** A guarded entry's guards: they run the server, probe its real connection and restart its upstream. */
export class GuardSource implements RemoteSource {
  constructor(
    private readonly guards: GuardReports | undefined,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** A probe answered: the guards' figures changed. */
    private readonly changed: () => void,
  ) {}

  status(config: ServerConfig): ServerStatus {
    return guardedStatus(config, this.nameOf(config), this.guards?.reports() ?? [], this.clock.wall());
  }

  async pingNow(config: ServerConfig): Promise<ProbeResult | null> {
    const result = (await this.guards?.probe?.(this.nameOf(config))) ?? null;
    if (result) this.changed();
    return result;
  }

  async reconnect(config: ServerConfig): Promise<void> {
    await this.restart(this.nameOf(config));
  }

  /** Each guard's answer, logged: a restart is refused while the client has requests in flight. */
  async restart(guardName: string): Promise<readonly GuardRestartOutcome[]> {
    const outcomes = (await this.guards?.restart?.(guardName)) ?? [];
    for (const outcome of outcomes) {
      this.logger[outcome.restarting ? 'info' : 'warn'](`${guardName}: guard ${outcome.guardPid}: ${outcome.detail}`);
    }
    return outcomes;
  }

  private nameOf(config: ServerConfig): string {
    return guardedName(config) ?? config.name;
  }
}
