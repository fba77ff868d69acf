// The contract between the monitor (src/core/monitor) and its front ends (CLI, extension).

import type { InventoryLimits, ToolDrift, ToolsBaseline } from './inventory/types';
import { defaultInventoryLimits } from './inventory/types';
import type { CrashLoopSettings } from './monitor/crashLoop';
import { defaultCrashLoopSettings } from './monitor/crashLoop';
import { MONITOR_MODE_VALUES, SETTINGS, type MonitorModeValue } from './settings';
import type { ConfigDiagnostic, ProbeResult, ServerConfig, ServerState, ServerStatus, TransportKind } from './model';
import type { Suspension } from './monitor/suspend';

/** watch: stay connected with keepalive probes; check: connect, probe once, disconnect; off: list only. */
export type MonitorMode = MonitorModeValue;

export const MONITOR_MODES: readonly MonitorMode[] = MONITOR_MODE_VALUES;

export interface MonitorSettings {
  /** Idle interval before a keepalive probe, per transport (protocol.md: 15-30 s; HTTP inside proxies' 30-60 s). */
  readonly intervalMs: Readonly<Record<TransportKind, number>>;
  /** Per-server override by server name or id. */
  readonly serverIntervalMs: Readonly<Record<string, number>>;
  /** Probe timeout: short and fixed; a timed-out probe is never retried. */
  readonly timeoutMs: number;
  /** Bound on one connect attempt (spawn + handshake / discover). */
  readonly connectTimeoutMs: number;
  /**
   * Bound on a stdio server's start before it ever answered (an `npx -y` download, a cold venv): a start is not a
   * connect. Absent: DEFAULT_STARTUP_TIMEOUT_MS. Never below connectTimeoutMs.
   */
  readonly startupTimeoutMs?: number;
  /** Per-server start-up budget by server name or id. */
  readonly serverStartupTimeoutMs?: Readonly<Record<string, number>>;
  /** Stop restarting after this many crashes (exits) in the window; absent: 5 in 3 minutes. */
  readonly crashLoop?: CrashLoopSettings;
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
  /** The once-per-connection listing of tools, prompts and resources (drift detection). Absent: the defaults. */
  readonly inventory?: InventorySettings;
  /**
   * Consecutive failures (timed-out or failed probes, lost connections, failed reconnects) before a server that was up
   * is shown down; meanwhile it is shown reconnecting. Absent or 1: the first failure is down (protocol.md).
   */
  readonly failuresBeforeDown?: number;
  /**
   * Probes answered in a row before a server that failed is shown up again; meanwhile it is shown reconnecting
   * ("recovering"). Absent or 1: up as soon as it is connected again.
   */
  readonly successesBeforeUp?: number;
  /** The *slow* flag: RTT above a threshold for several probes in a row. Absent: off. */
  readonly slow?: SlowSettings;
}

export interface InventorySettings extends InventoryLimits {
  readonly enabled: boolean;
}

export const defaultInventorySettings: InventorySettings = { enabled: true, ...defaultInventoryLimits };

/** The setting's default (src/core/settings.ts says why it is long). */
export const DEFAULT_STARTUP_TIMEOUT_MS = SETTINGS.startupTimeoutSeconds.default * 1000;

/** What a front end starts from: the settings' defaults (src/core/settings.ts) and the timings that are no setting. */
export const defaultMonitorSettings: MonitorSettings = {
  intervalMs: {
    stdio: SETTINGS['pingIntervalSeconds.stdio'].default * 1000,
    http: SETTINGS['pingIntervalSeconds.http'].default * 1000,
    sse: SETTINGS['pingIntervalSeconds.sse'].default * 1000,
  },
  serverIntervalMs: {},
  timeoutMs: SETTINGS.timeoutSeconds.default * 1000,
  connectTimeoutMs: 15_000,
  startupTimeoutMs: DEFAULT_STARTUP_TIMEOUT_MS,
  serverStartupTimeoutMs: {},
  crashLoop: defaultCrashLoopSettings,
  backoff: { initialMs: 1_000, maxMs: 60_000 },
  flapping: { windowMs: 10 * 60_000, restarts: 3, stableMs: 5 * 60_000 },
  mode: SETTINGS.monitoringMode.default,
  serverMode: {},
  checkIntervalMs: SETTINGS.checkIntervalMinutes.default * 60_000,
  inventory: defaultInventorySettings,
};

export type MonitorEvent =
  | {
      readonly type: 'state';
      readonly id: string;
      readonly from: ServerState;
      readonly to: ServerState;
      readonly reason: string;
      readonly status: ServerStatus;
    }
  | { readonly type: 'probe'; readonly id: string; readonly result: ProbeResult; readonly status: ServerStatus }
  | { readonly type: 'stderr'; readonly id: string; readonly text: string }
  /** A server's details changed without a state change: a `down` server's next retry was scheduled or started. */
  | {
      readonly type: 'status';
      readonly id: string;
      readonly status: ServerStatus;
      /** A reconnect attempt starts now. */ readonly reconnecting?: true;
    }
  /** A connection's listing of tools, prompts and resources finished (complete or not). */
  | { readonly type: 'inventory'; readonly id: string; readonly status: ServerStatus }
  /** The tools differ from the accepted baseline: announced once per distinct tool set. */
  | { readonly type: 'tools-changed'; readonly id: string; readonly drift: ToolDrift; readonly status: ServerStatus }
  /** The set of servers or diagnostics changed (added, removed, config edited). */
  | { readonly type: 'servers' }
  /** The machine slept (or the process was frozen): the gap is not observed, and every server is being probed. */
  | { readonly type: 'wake'; readonly suspension: Suspension };

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
  /** Resolves once every listing of tools, prompts and resources under way (all servers, or one) has settled. */
  settleInventory(id?: string): Promise<void>;
  /** Compares this server's tools against `baseline` from now on (from storage or a file); null forgets it. */
  setToolsBaseline(id: string, baseline: ToolsBaseline | null): void;
  /** The tool set this server is compared against: given, accepted, or its first complete listing; null before. */
  toolsBaseline(id: string): ToolsBaseline | null;
  /** Accepts the tools the server lists now as its baseline (returned, to be stored); null if there is no whole list. */
  acceptToolsBaseline(id: string): ToolsBaseline | null;
  /**
   * Tears down and reconnects now (all, or one), resetting backoff and the non-conformant verdict. A guarded entry's
   * guard restarts its upstream instead, if that fails none of the client's requests.
   */
  reconnect(id?: string): Promise<void>;
  /** Reconnect on one guarded entry, with each guard's answer; null when the entry is not guarded. */
  restartGuarded(id: string): Promise<readonly GuardRestartOutcome[] | null>;
  /** Turns monitoring of one server off (state `disabled`, connection closed) or back on. */
  setEnabled(id: string, enabled: boolean): void;
  /** Supplies `${input:}` values is done by re-discovery; this re-times, or reconnects only what the change touches. */
  updateSettings(settings: MonitorSettings): void;
  /** Closes every connection, kills every child, clears every timer. */
  dispose(): Promise<void>;
}

/** The *slow* flag's settings (applied by monitor/slowness.ts). */
export interface SlowSettings {
  /** Threshold for every server, ms; null: off. */
  readonly thresholdMs: number | null;
  /** Per-server threshold by id or name; wins over thresholdMs. */
  readonly serverThresholdMs: Readonly<Record<string, number>>;
  /** Consecutive answers above the threshold that make a server slow. */
  readonly enterAfter: number;
  /** Consecutive answers at or below it that clear the flag. */
  readonly clearAfter: number;
}

/** What a guard answered to "restart your upstream now". */
export interface GuardRestartOutcome {
  readonly guardPid: number;
  readonly restarting: boolean;
  readonly detail: string;
}
