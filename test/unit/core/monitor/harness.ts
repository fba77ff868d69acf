// Shared set-up for monitor tests: a registry on a fake clock and a scripted connector, with every event and log line kept.

import type { GuardReports } from '../../../../src/core/guardReport';
import type { Logger, LogLevel } from '../../../../src/core/logger';
import type { ServerConfig, SourceRef } from '../../../../src/core/model';
import type { MonitorEvent, MonitorSettings } from '../../../../src/core/monitorTypes';
import { createRegistry, type TrustAwareRegistry } from '../../../../src/core/monitor/index';
import { FakeClock } from '../../../helpers/fakeClock';
import { FakeConnector } from '../../../helpers/fakeConnector';
import { DEFAULT_SOURCE, serverConfig } from '../../../helpers/serverConfig';

export const INTERVAL_MS = 10_000;
export const TIMEOUT_MS = 2_000;

export const testSettings: MonitorSettings = {
  intervalMs: { stdio: INTERVAL_MS, http: INTERVAL_MS, sse: INTERVAL_MS },
  serverIntervalMs: {},
  timeoutMs: TIMEOUT_MS,
  connectTimeoutMs: 5_000,
  // The same as the connect timeout: these tests are about reconnects; start-up budgets have tests of their own.
  startupTimeoutMs: 5_000,
  backoff: { initialMs: 1_000, maxMs: 8_000 },
  flapping: { windowMs: 60_000, restarts: 3, stableMs: 30_000 },
};

export function server(name: string, overrides: Partial<ServerConfig> & { scope?: SourceRef['scope'] } = {}): ServerConfig {
  const { scope, ...rest } = overrides;
  // The folder stays for a user scope too: these tests only look at the scope.
  return serverConfig(name, { ...rest, source: { scope: scope ?? 'workspace', folder: DEFAULT_SOURCE.folder } });
}

export interface LogLine {
  readonly level: LogLevel;
  readonly message: string;
}

export interface Harness {
  readonly clock: FakeClock;
  readonly connector: FakeConnector;
  readonly registry: TrustAwareRegistry;
  readonly events: MonitorEvent[];
  readonly logs: LogLine[];
  stateChanges(id: string): string[];
}

export interface HarnessOptions {
  /** A FakeClock with its own timer behaviour (default: a plain one). */
  readonly clock?: FakeClock;
  readonly settings?: MonitorSettings;
  readonly random?: () => number;
  readonly redact?: (text: string) => string;
  readonly workspaceTrusted?: boolean;
  readonly consent?: (config: ServerConfig) => boolean;
  /** Built on the harness's fake clock (e.g. a GuardPoller). */
  readonly guards?: (clock: FakeClock) => GuardReports;
  /** First starts at once (default: many, so tests about other things are not queued behind the start slots). */
  readonly maxConcurrentStarts?: number;
  /** The logger's `enabled` (default: absent, every level is written). */
  readonly logLevelEnabled?: (level: LogLevel) => boolean;
}

export function harness(options: HarnessOptions = {}): Harness {
  const clock = options.clock ?? new FakeClock();
  const connector = new FakeConnector(clock);
  const logs: LogLine[] = [];
  const logger: Logger = {
    trace: (message) => logs.push({ level: 'trace', message }),
    debug: (message) => logs.push({ level: 'debug', message }),
    info: (message) => logs.push({ level: 'info', message }),
    warn: (message) => logs.push({ level: 'warn', message }),
    error: (message) => logs.push({ level: 'error', message }),
    ...(options.logLevelEnabled ? { enabled: options.logLevelEnabled } : {}),
  };
  const registry = createRegistry({
    connector,
    clock,
    logger,
    settings: options.settings ?? testSettings,
    random: options.random ?? (() => 0.5),
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.workspaceTrusted !== undefined ? { workspaceTrusted: options.workspaceTrusted } : {}),
    ...(options.consent ? { consent: options.consent } : {}),
    ...(options.guards ? { guards: options.guards(clock) } : {}),
    maxConcurrentStarts: options.maxConcurrentStarts ?? 64,
  });
  const events: MonitorEvent[] = [];
  registry.onEvent((event) => events.push(event));
  return {
    clock,
    connector,
    registry,
    events,
    logs,
    stateChanges: (id) => events.flatMap((event) => (event.type === 'state' && event.id === id ? [`${event.from}->${event.to}`] : [])),
  };
}

/** The state of one server, failing loudly when it is not listed. */
export function stateOf(h: Harness, id: string): string {
  const status = h.registry.get(id);
  if (!status) {
    throw new Error(`${id} is not listed`);
  }
  return status.state;
}
