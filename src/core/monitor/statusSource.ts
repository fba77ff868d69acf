// Servers run by someone else (another editor window leads the user-level servers): this process does not connect
// them and shows the status that other process reports instead. Pure: the channel that carries it lives in src/mcp.

import type { ProbeResult, ServerConfig, ServerStatus } from '../model';
import type { Unsubscribe } from '../monitorTypes';
import { EMPTY_PROBE_STATS } from './probeStats';

/** What travels between processes: everything but the config, which each side has read from the same file. */
export type RemoteStatus = Omit<ServerStatus, 'config'>;

export interface StatusSource {
  /** Who runs the servers, for views: "another VS Code window". */
  readonly label: string;
  /** Which servers the source is responsible for (e.g. every user-scope server). */
  covers(config: ServerConfig): boolean;
  /** The latest status it reported for a server, undefined while it reported none (not running it, or not yet). */
  status(id: string): RemoteStatus | undefined;
  /** Fires when any reported status changed. */
  onDidChange(listener: () => void): Unsubscribe;
  /** Forwarded user actions; null when the source cannot act on that server right now. */
  pingNow(id: string): Promise<ProbeResult | null>;
  reconnect(id: string): Promise<void>;
}

/** The status a view shows for a mirrored server: the source's report on our own config, marked as watched elsewhere. */
export function mirroredStatus(config: ServerConfig, remote: RemoteStatus | undefined, label: string, wall: number): ServerStatus {
  if (remote) {
    return { ...remote, config, watchedElsewhere: label };
  }
  // Not (yet) reported: the source has not started it, or its own discovery leaves it out (other settings there).
  return {
    config,
    state: 'idle',
    era: null,
    protocolVersion: null,
    serverInfo: null,
    lastRttMs: null,
    lastError: null,
    lastProbeAt: null,
    lastStateChangeAt: wall,
    consecutiveFailures: 0,
    restarts: 0,
    flapping: false,
    nonConformant: false,
    stats: EMPTY_PROBE_STATS,
    stderrTail: '',
    pid: null,
    watchedElsewhere: `${label} (no status reported yet)`,
  };
}

/** Strips what must not leave this process (the config holds env and header values) from a status. */
export function toRemote(status: ServerStatus): RemoteStatus {
  const { config: _config, watchedElsewhere: _elsewhere, ...rest } = status;
  return rest;
}
