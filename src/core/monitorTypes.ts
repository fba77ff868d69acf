// The contract between the monitor (src/core/monitor) and its front ends (CLI, extension).

import type { ConfigDiagnostic, ProbeResult, ServerConfig, ServerState, ServerStatus, TransportKind } from './model';

/** watch: stay connected with keepalive probes; check: connect, probe once, disconnect; off: list only. */
export type MonitorMode = 'watch' | 'check' | 'off';

export const MONITOR_MODES: readonly MonitorMode[] = ['watch', 'check', 'off'];

export interface MonitorSettings {
  /** Idle interval before a keepalive probe, per transport (protocol.md: 15-30 s; HTTP inside proxies' 30-60 s). */
  readonly intervalMs: Readonly<Record<TransportKind, number>>;
  /** Per-server override by server name or id. */
  readonly serverIntervalMs: Readonly<Record<string, number>>;
  /** Probe timeout: short and fixed; a timed-out probe is never retried. */
  readonly timeoutMs: number;
  /** Bound on one connect attempt (spawn + handshake / discover). */
  readonly connectTimeoutMs: number;
  /** Reconnect backoff: exponential from initialMs, capped at maxMs, full jitter. */
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  /** Flapping: `restarts` or more restarts within `windowMs`; cleared after `stableMs` up without a restart. */
  readonly flapping: { readonly windowMs: number; readonly restarts: number; readonly stableMs: number };
  /** Default mode for every server (watch when absent). */
  readonly mode?: MonitorMode;
  /** Per-server mode by server name or id. */
  readonly serverMode?: Readonly<Record<string, MonitorMode>>;
  /** How often a server in `check` mode is checked again (default 10 minutes). */
  readonly checkIntervalMs?: number;
}

export const defaultMonitorSettings: MonitorSettings = {
  intervalMs: { stdio: 30_000, http: 20_000, sse: 20_000 },
  serverIntervalMs: {},
  timeoutMs: 5_000,
  connectTimeoutMs: 15_000,
  backoff: { initialMs: 1_000, maxMs: 60_000 },
  flapping: { windowMs: 10 * 60_000, restarts: 3, stableMs: 5 * 60_000 },
  mode: 'watch',
  serverMode: {},
  checkIntervalMs: 10 * 60_000,
};

export type MonitorEvent =
  | { readonly type: 'state'; readonly id: string; readonly from: ServerState; readonly to: ServerState; readonly reason: string; readonly status: ServerStatus }
  | { readonly type: 'probe'; readonly id: string; readonly result: ProbeResult; readonly status: ServerStatus }
  | { readonly type: 'stderr'; readonly id: string; readonly text: string }
  /** A server's details changed without a state change: a `down` server's next retry was scheduled or started. */
  | { readonly type: 'status'; readonly id: string; readonly status: ServerStatus }
  /** The set of servers or diagnostics changed (added, removed, config edited). */
  | { readonly type: 'servers' };

export interface Unsubscribe {
  (): void;
}

/** The single source of truth every view subscribes to. */
export interface MonitorRegistry {
  /** Reconciles with a new discovery result: unchanged servers keep their connection, edited ones reconnect, gone ones close. */
  setServers(servers: readonly ServerConfig[], diagnostics: readonly ConfigDiagnostic[]): void;
  list(): readonly ServerStatus[];
  get(id: string): ServerStatus | undefined;
  diagnostics(): readonly ConfigDiagnostic[];
  onEvent(listener: (event: MonitorEvent) => void): Unsubscribe;
  /** Starts connecting and probing every enabled server. */
  start(): void;
  /** Probes now (all servers, or one); connects first where not connected. Resolves when every probe settled. */
  pingNow(id?: string): Promise<ReadonlyMap<string, ProbeResult>>;
  /** Tears down and reconnects now (all, or one), resetting backoff and the non-conformant verdict. */
  reconnect(id?: string): Promise<void>;
  /** Turns monitoring of one server off (state `disabled`, connection closed) or back on. */
  setEnabled(id: string, enabled: boolean): void;
  /** Supplies `${input:}` values is done by re-discovery; this re-times, or reconnects only what the change touches. */
  updateSettings(settings: MonitorSettings): void;
  /** Closes every connection, kills every child, clears every timer. */
  dispose(): Promise<void>;
}
