// The `mcpHealth.*` settings as one frozen object, and what a change between two of them requires.
// Pure: the editor adapter passes a reader; each value is parsed by its row of the core's table (src/core/settings.ts),
// which holds every setting's type, default and bounds.

import type { ConfigFormat } from '../core/model';
import { SETTINGS_BOUNDS } from '../core/monitor/intervals';
import { defaultSlowSettings } from '../core/monitor/slowness';
import { defaultMonitorSettings, type MonitorMode, type MonitorSettings } from '../core/monitorTypes';
import { SETTINGS, type SettingKey } from '../core/settings';

export type NotificationLevel = (typeof SETTINGS.notifications.enum)[number];
export type StatusBarVisibility = (typeof SETTINGS)['statusBar.show']['enum'][number];

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

/** Each setting's value in force: read, then parsed by its row of the core's table (type, bounds, default). */
function reading(read: SettingReader) {
  return <K extends SettingKey>(key: K): ReturnType<(typeof SETTINGS)[K]['parse']> =>
    SETTINGS[key].parse(read(key)) as ReturnType<(typeof SETTINGS)[K]['parse']>;
}

export function parseSettings(read: SettingReader): ExtensionSettings {
  const value = reading(read);
  const serverIntervalMs: Record<string, number> = {};
  const serverMode: Record<string, MonitorMode> = {};
  const serverSlowMs: Record<string, number> = {};
  const serverStartupTimeoutMs: Record<string, number> = {};
  for (const [name, override] of Object.entries(value('serverOverrides'))) {
    if (override.intervalSeconds !== undefined) serverIntervalMs[name] = override.intervalSeconds * 1000;
    if (override.mode !== undefined) serverMode[name] = override.mode;
    if (override.startupTimeoutSeconds !== undefined) serverStartupTimeoutMs[name] = override.startupTimeoutSeconds * 1000;
    if (override.slowThresholdMs !== undefined) serverSlowMs[name] = override.slowThresholdMs;
  }
  const slowThresholdMs = value('slowThresholdMs') || null;
  const failuresBeforeDown = value('failuresBeforeDown');
  const successesBeforeUp = value('successesBeforeUp');
  const settings: ExtensionSettings = {
    monitor: {
      ...defaultMonitorSettings,
      intervalMs: {
        stdio: value('pingIntervalSeconds.stdio') * 1000,
        http: value('pingIntervalSeconds.http') * 1000,
        sse: value('pingIntervalSeconds.sse') * 1000,
      },
      serverIntervalMs,
      timeoutMs: value('timeoutSeconds') * 1000,
      startupTimeoutMs: value('startupTimeoutSeconds') * 1000,
      serverStartupTimeoutMs,
      crashLoop: { crashes: value('crashLoop.maxCrashes'), windowMs: value('crashLoop.windowMinutes') * 60_000 },
      mode: value('monitoringMode'),
      serverMode,
      checkIntervalMs: value('checkIntervalMinutes') * 60_000,
      // 1 (the default) adds nothing to the monitor settings: the first failure is down, the first success up.
      ...(failuresBeforeDown > 1 ? { failuresBeforeDown } : {}),
      ...(successesBeforeUp > 1 ? { successesBeforeUp } : {}),
      // Off unless a threshold is set somewhere: the monitor settings stay the defaults then.
      ...(slowThresholdMs !== null || Object.keys(serverSlowMs).length
        ? {
            slow: {
              ...(defaultMonitorSettings.slow ?? defaultSlowSettings),
              thresholdMs: slowThresholdMs,
              serverThresholdMs: serverSlowMs,
            },
          }
        : {}),
    },
    notifications: value('notifications'),
    notificationReminderMs: value('notificationReminderMinutes') * 60_000,
    statusBar: value('statusBar.show'),
    discovery: { sources: value('discovery.sources'), includeUserConfigs: value('discovery.includeUserConfigs') },
    excludedServers: value('excludedServers'),
    metricsListen: value('metrics.listen'),
    codeLens: value('codeLens.enabled'),
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
    metrics:
      previous.metricsListen !== next.metricsListen || (next.metricsListen !== '' && previous.monitor.timeoutMs !== next.monitor.timeoutMs),
  };
}

/** Whether a server is excluded by name (as written in its file) or by its full id. */
export function isExcluded(settings: ExtensionSettings, server: { readonly id: string; readonly name: string }): boolean {
  return settings.excludedServers.includes(server.name) || settings.excludedServers.includes(server.id);
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
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys(value[key])]),
    );
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
