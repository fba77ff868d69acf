// Keepalive timing from the settings, with floors so that no setting can turn the monitor into a tight loop.

import type { ServerConfig } from '../model';
import type { MonitorMode, MonitorSettings } from '../monitorTypes';

export const MIN_INTERVAL_MS = 1_000;
export const MIN_TIMEOUT_MS = 100;

/** Idle time before a keepalive probe: per-server override (by id, then name), else per transport. */
export function probeIntervalFor(config: ServerConfig, settings: MonitorSettings): number {
  const configured =
    settings.serverIntervalMs[config.id] ?? settings.serverIntervalMs[config.name] ?? settings.intervalMs[config.transport];
  return Math.max(MIN_INTERVAL_MS, Number.isFinite(configured) ? configured : MIN_INTERVAL_MS);
}

export function probeTimeoutFor(settings: MonitorSettings): number {
  return Math.max(MIN_TIMEOUT_MS, Number.isFinite(settings.timeoutMs) ? settings.timeoutMs : MIN_TIMEOUT_MS);
}

export const DEFAULT_CHECK_INTERVAL_MS = 10 * 60_000;

/** The server's mode: per-server override (by id, then name), else the default, else watch. */
export function modeFor(config: ServerConfig, settings: MonitorSettings): MonitorMode {
  return settings.serverMode?.[config.id] ?? settings.serverMode?.[config.name] ?? settings.mode ?? 'watch';
}

export function checkIntervalFor(settings: MonitorSettings): number {
  const configured = settings.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
  return Math.max(MIN_INTERVAL_MS, Number.isFinite(configured) ? configured : DEFAULT_CHECK_INTERVAL_MS);
}
