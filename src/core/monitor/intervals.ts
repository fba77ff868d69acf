// Keepalive timing from the settings, with floors so that no setting can turn the monitor into a tight loop. The
// settings' own bounds and defaults are in src/core/settings.ts (package.json states the same, a unit test holds them
// equal); the CLI parses with the floors below, and both start from defaultMonitorSettings.

import type { ServerConfig } from '../model';
import { DEFAULT_STARTUP_TIMEOUT_MS, defaultMonitorSettings, type MonitorMode, type MonitorSettings } from '../monitorTypes';
import { SETTINGS, type NumberSetting } from '../settings';

/** The monitor's own floors, whatever the caller passes: below them the monitor would be a tight loop. */
export const MIN_INTERVAL_MS = 1_000;
export const MIN_TIMEOUT_MS = 100;

/**
 * What the editor's settings allow. The interval floor is 5 s, above the monitor's own: a keepalive more often than
 * that loads a server for nothing a user can see. Only the CLI goes lower, for tests (see src/cli/args.ts).
 */
export const SETTINGS_BOUNDS = {
  intervalSeconds: bounds(SETTINGS['pingIntervalSeconds.stdio']),
  timeoutSeconds: bounds(SETTINGS.timeoutSeconds),
  checkIntervalMinutes: bounds(SETTINGS.checkIntervalMinutes),
  reminderMinutes: bounds(SETTINGS.notificationReminderMinutes),
  startupTimeoutSeconds: bounds(SETTINGS.startupTimeoutSeconds),
  crashLoopCrashes: bounds(SETTINGS['crashLoop.maxCrashes']),
  crashLoopWindowMinutes: bounds(SETTINGS['crashLoop.windowMinutes']),
} as const;

function bounds(setting: NumberSetting): { readonly min: number; readonly max: number } {
  return { min: setting.minimum, max: setting.maximum };
}

/** Idle time before a keepalive probe: per-server override (by id, then name), else per transport. */
export function probeIntervalFor(config: ServerConfig, settings: MonitorSettings): number {
  const configured =
    settings.serverIntervalMs[config.id] ?? settings.serverIntervalMs[config.name] ?? settings.intervalMs[config.transport];
  return Math.max(MIN_INTERVAL_MS, Number.isFinite(configured) ? configured : MIN_INTERVAL_MS);
}

export function probeTimeoutFor(settings: MonitorSettings): number {
  return Math.max(MIN_TIMEOUT_MS, Number.isFinite(settings.timeoutMs) ? settings.timeoutMs : MIN_TIMEOUT_MS);
}

export const DEFAULT_CHECK_INTERVAL_MS = defaultMonitorSettings.checkIntervalMs ?? 10 * 60_000;

/** The server's mode: per-server override (by id, then name), else the default, else watch. */
export function modeFor(config: ServerConfig, settings: MonitorSettings): MonitorMode {
  return settings.serverMode?.[config.id] ?? settings.serverMode?.[config.name] ?? settings.mode ?? 'watch';
}

export function checkIntervalFor(settings: MonitorSettings): number {
  const configured = settings.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
  return Math.max(MIN_INTERVAL_MS, Number.isFinite(configured) ? configured : DEFAULT_CHECK_INTERVAL_MS);
}

/**
 * The budget of a stdio server's first start (per-server override by id, then name, else the setting): never below
 * the connect timeout, since a start includes everything a connect does.
 */
export function startupTimeoutFor(config: ServerConfig, settings: MonitorSettings): number {
  const configured =
    settings.serverStartupTimeoutMs?.[config.id] ??
    settings.serverStartupTimeoutMs?.[config.name] ??
    settings.startupTimeoutMs ??
    DEFAULT_STARTUP_TIMEOUT_MS;
  return Math.max(settings.connectTimeoutMs, Number.isFinite(configured) ? configured : DEFAULT_STARTUP_TIMEOUT_MS);
}
