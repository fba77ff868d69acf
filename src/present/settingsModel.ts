// The `mcpHealth.*` settings as one frozen object, and what a change between two of them requires.
// Pure: the editor adapter passes a reader, so bounds and defaults are checked in one place and testable.

import type { ConfigFormat, TransportKind } from '../core/model';
import { DEFAULT_CHECK_INTERVAL_MS, SETTINGS_BOUNDS } from '../core/monitor/intervals';
import { defaultSlowSettings } from '../core/monitor/slowness';
import { defaultCrashLoopSettings } from '../core/monitor/crashLoop';
import { DEFAULT_STARTUP_TIMEOUT_MS, defaultMonitorSettings, MONITOR_MODES, type MonitorMode, type MonitorSettings } from '../core/monitorTypes';

export type NotificationLevel = 'all' | 'errors' | 'off';
export type StatusBarVisibility = 'always' | 'whenServers' | 'never';

export interface ExtensionSettings {
  readonly monitor: MonitorSettings;
  readonly notifications: NotificationLevel;
  /** A server still failing this long after its last notification is told again; 0: never. */
  readonly notificationReminderMs: number;
  readonly statusBar: StatusBarVisibility;
  readonly discovery: {
    readonly sources: Readonly<Partial<Record<ConfigFormat, boolean>>>;
    readonly includeUserConfigs: boolean;
  };
  readonly excludedServers: readonly string[];
  /** `HOST:PORT` to serve Prometheus /metrics from the extension host; empty = off. */
  readonly metricsListen: string;
  /** Status lens and hover on each server entry of the config files. */
  readonly codeLens: boolean;
}

/** Reads one setting below `mcpHealth.`; undefined when unset. */
export type SettingReader = (key: string) => unknown;

export const INTERVAL_BOUNDS = SETTINGS_BOUNDS.intervalSeconds;
export const TIMEOUT_BOUNDS = SETTINGS_BOUNDS.timeoutSeconds;
export const CHECK_INTERVAL_MINUTES_BOUNDS = SETTINGS_BOUNDS.checkIntervalMinutes;
export const REMINDER_MINUTES_BOUNDS = SETTINGS_BOUNDS.reminderMinutes;
export const STARTUP_SECONDS_BOUNDS = SETTINGS_BOUNDS.startupTimeoutSeconds;

/** Above the longest probe timeout: a larger threshold could never be reached. */
const SLOW_MAX_MS = 30_000;
const FAILURES_MAX = 10;

const transports: readonly TransportKind[] = ['stdio', 'http', 'sse'];

export function parseSettings(read: SettingReader, base: MonitorSettings = defaultMonitorSettings): ExtensionSettings {
  const intervalMs = Object.fromEntries(
    transports.map((transport) => [transport, seconds(read(`pingIntervalSeconds.${transport}`), INTERVAL_BOUNDS, base.intervalMs[transport] / 1000) * 1000]),
  ) as Record<TransportKind, number>;
  const serverIntervalMs: Record<string, number> = {};
  const serverMode: Record<string, MonitorMode> = {};
  const serverSlowMs: Record<string, number> = {};
  const serverStartupTimeoutMs: Record<string, number> = {};
  const overrides = read('serverOverrides');
  if (isRecord(overrides)) {
    for (const [name, override] of Object.entries(overrides)) {
      if (isRecord(override) && typeof override.intervalSeconds === 'number' && Number.isFinite(override.intervalSeconds)) {
        serverIntervalMs[name] = seconds(override.intervalSeconds, INTERVAL_BOUNDS, INTERVAL_BOUNDS.min) * 1000;
      }
      if (isRecord(override) && MONITOR_MODES.includes(override.mode as MonitorMode)) {
        serverMode[name] = override.mode as MonitorMode;
      }
      if (isRecord(override) && typeof override.startupTimeoutSeconds === 'number' && Number.isFinite(override.startupTimeoutSeconds)) {
        serverStartupTimeoutMs[name] = seconds(override.startupTimeoutSeconds, STARTUP_SECONDS_BOUNDS, STARTUP_SECONDS_BOUNDS.min) * 1000;
      }
      if (isRecord(override) && typeof override.slowThresholdMs === 'number' && Number.isFinite(override.slowThresholdMs) && override.slowThresholdMs > 0) {
        serverSlowMs[name] = Math.min(SLOW_MAX_MS, override.slowThresholdMs);
      }
    }
  }
  const slowSetting = read('slowThresholdMs');
  const slowThresholdMs = typeof slowSetting === 'number' && Number.isFinite(slowSetting) && slowSetting > 0 ? Math.min(SLOW_MAX_MS, slowSetting) : null;
  const sources: Partial<Record<ConfigFormat, boolean>> = {};
  const sourceSetting = read('discovery.sources');
  if (isRecord(sourceSetting)) {
    for (const [format, enabled] of Object.entries(sourceSetting)) {
      if (typeof enabled === 'boolean') {
        sources[format as ConfigFormat] = enabled;
      }
    }
  }
  const excluded = read('excludedServers');
  const settings: ExtensionSettings = {
    monitor: {
      ...base,
      intervalMs,
      serverIntervalMs,
      timeoutMs: seconds(read('timeoutSeconds'), TIMEOUT_BOUNDS, base.timeoutMs / 1000) * 1000,
      startupTimeoutMs: seconds(read('startupTimeoutSeconds'), STARTUP_SECONDS_BOUNDS, (base.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS) / 1000) * 1000,
      serverStartupTimeoutMs,
      crashLoop: {
        crashes: Math.round(seconds(read('crashLoop.maxCrashes'), SETTINGS_BOUNDS.crashLoopCrashes, (base.crashLoop ?? defaultCrashLoopSettings).crashes)),
        windowMs: seconds(read('crashLoop.windowMinutes'), SETTINGS_BOUNDS.crashLoopWindowMinutes, (base.crashLoop ?? defaultCrashLoopSettings).windowMs / 60_000) * 60_000,
      },
      mode: oneOf(read('monitoringMode'), MONITOR_MODES, 'watch'),
      serverMode,
      checkIntervalMs: seconds(read('checkIntervalMinutes'), CHECK_INTERVAL_MINUTES_BOUNDS, (base.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS) / 60_000) * 60_000,
      ...failureThreshold(read('failuresBeforeDown')),
      ...recoveryThreshold(read('successesBeforeUp')),
      // Off unless a threshold is set somewhere: the monitor settings stay the defaults then.
      ...(slowThresholdMs !== null || Object.keys(serverSlowMs).length
        ? { slow: { ...(base.slow ?? defaultSlowSettings), thresholdMs: slowThresholdMs, serverThresholdMs: serverSlowMs } }
        : {}),
    },
    notifications: oneOf(read('notifications'), ['all', 'errors', 'off'] as const, 'errors'),
    notificationReminderMs: reminderMinutes(read('notificationReminderMinutes')) * 60_000,
    statusBar: oneOf(read('statusBar.show'), ['always', 'whenServers', 'never'] as const, 'whenServers'),
    discovery: { sources, includeUserConfigs: typeof read('discovery.includeUserConfigs') === 'boolean' ? read('discovery.includeUserConfigs') as boolean : true },
    excludedServers: Array.isArray(excluded) ? [...new Set(excluded.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()))] : [],
    metricsListen: typeof read('metrics.listen') === 'string' ? (read('metrics.listen') as string).trim() : '',
    codeLens: read('codeLens.enabled') !== false,
  };
  return deepFreeze(settings);
}

export interface SettingsChange {
  /** Probe intervals or timeout changed: the monitor re-times, connections stay. */
  readonly retime: boolean;
  /** Which servers exist changed: discover again and reconcile. */
  readonly rediscover: boolean;
  /** Only presentation changed (status bar visibility, config-file lenses). */
  readonly rerender: boolean;
  readonly notifications: boolean;
  /** The metrics endpoint moves, starts or stops (the probe timeout it records timed-out probes at counts too). */
  readonly metrics: boolean;
}

export function compareSettings(previous: ExtensionSettings, next: ExtensionSettings): SettingsChange {
  return {
    retime: !sameJson(previous.monitor, next.monitor),
    rediscover: !sameJson(previous.discovery, next.discovery) || !sameJson(previous.excludedServers, next.excludedServers),
    rerender: previous.statusBar !== next.statusBar || previous.codeLens !== next.codeLens,
    notifications: previous.notifications !== next.notifications || previous.notificationReminderMs !== next.notificationReminderMs,
    metrics: previous.metricsListen !== next.metricsListen || (next.metricsListen !== '' && previous.monitor.timeoutMs !== next.monitor.timeoutMs),
  };
}

/** Whole minutes within bounds; anything else (unset, negative, not a number) is 0: never remind. */
function reminderMinutes(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 0;
  return Math.min(REMINDER_MINUTES_BOUNDS.max, Math.max(1, Math.round(value)));
}

/** Whether a server is excluded by name (as written in its file) or by its full id. */
export function isExcluded(settings: ExtensionSettings, server: { readonly id: string; readonly name: string }): boolean {
  return settings.excludedServers.includes(server.name) || settings.excludedServers.includes(server.id);
}

/** 1 (the protocol's rule: the first failure is down) is the default and adds nothing to the monitor settings. */
function failureThreshold(value: unknown): { failuresBeforeDown?: number } {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 1) return {};
  return { failuresBeforeDown: Math.min(FAILURES_MAX, Math.floor(value)) };
}

/** Likewise 1 (up as soon as it is connected again) is the default. */
function recoveryThreshold(value: unknown): { successesBeforeUp?: number } {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 1) return {};
  return { successesBeforeUp: Math.min(FAILURES_MAX, Math.floor(value)) };
}

function seconds(value: unknown, bounds: { readonly min: number; readonly max: number }, fallback: number): number {
  // Settings edited by hand in JSON skip the schema's bounds, so they are enforced here too.
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return fallback;
  }
  return Math.min(bounds.max, Math.max(bounds.min, value));
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(sortKeys);
  }
  if (isRecord(value)) {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys(value[key])]));
  }
  return value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
    Object.freeze(value);
  }
  return value;
}
