// Our code under test, gathered in one place so the sections and the scale worker build it the same way.
import type { Connector } from '../../src/core/connection';
import { systemClock, type Clock } from '../../src/core/clock';
import { silentLogger, type Logger } from '../../src/core/logger';
import { defaultMonitorSettings, type MonitorRegistry, type MonitorSettings } from '../../src/core/monitorTypes';
import { createRegistry } from '../../src/core/monitor/index';
import { createNodeConnector } from '../../src/mcp/index';

export interface Ours {
  readonly createNodeConnector: (options?: { logger?: Logger; clientInfo?: { name: string; version: string } }) => Connector;
  readonly createRegistry: (deps: {
    connector: Connector;
    clock: Clock;
    logger: Logger;
    settings: MonitorSettings;
    maxConcurrentStarts?: number;
  }) => MonitorRegistry;
  readonly systemClock: Clock;
  readonly silentLogger: Logger;
  readonly defaultMonitorSettings: MonitorSettings;
}

export async function loadOurs(): Promise<Ours> {
  return { createNodeConnector, createRegistry, systemClock, silentLogger, defaultMonitorSettings };
}

/**
 * Fast settings for detection trials. Flapping and the crash-loop give-up are pushed out of reach so repeated trials
 * measure detection, not damping: twelve kills a few seconds apart are a crash loop by the product's rule (5 in 3 min),
 * which would stop restarting at the fifth.
 */
export function benchSettings(base: MonitorSettings, intervalMs: number, timeoutMs: number): MonitorSettings {
  return {
    ...base,
    intervalMs: { stdio: intervalMs, http: intervalMs, sse: intervalMs },
    timeoutMs,
    connectTimeoutMs: 5000,
    flapping: { windowMs: base.flapping.windowMs, restarts: 1_000_000, stableMs: base.flapping.stableMs },
    crashLoop: { crashes: 1_000_000, windowMs: base.crashLoop?.windowMs ?? 3 * 60_000 },
  };
}

export const clientInfo = { name: 'mcp-health-bench', version: '0.0.0' };

/** A registry as the CLI and the extension build one: a Node connector, the system clock, default settings. */
export function defaultRegistry(ours: Ours, options: { maxConcurrentStarts?: number } = {}): MonitorRegistry {
  return ours.createRegistry({
    connector: ours.createNodeConnector({ logger: ours.silentLogger, clientInfo }),
    clock: ours.systemClock,
    logger: ours.silentLogger,
    settings: ours.defaultMonitorSettings,
    ...options,
  });
}
