// What a server's monitor is given by its registry, and what every part of it reads: the time, the log, the redactor,
// and the server and settings as they are now (both can change under a running monitor).

import type { Clock } from '../clock';
import type { Connector } from '../connection';
import type { Logger, LogLevel } from '../logger';
import type { ServerConfig } from '../model';
import type { MonitorEvent, MonitorSettings } from '../monitorTypes';
import type { ConnectSlots } from './connectSlots';

export interface MonitorContext {
  readonly connector: Connector;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random: () => number;
  readonly redact?: (text: string) => string;
  /** Shared by every server of a registry, so a burst of connects is spread out instead of timing out together. */
  readonly connectSlots: ConnectSlots;
  /** Bounds the first starts of stdio servers running at once (chosen from the machine's parallelism by the front end). */
  readonly startSlots: ConnectSlots;
  settings(): MonitorSettings;
  /** Before start() the monitor only acts on request (pingNow, reconnect): no keepalive, no automatic reconnect. */
  isStarted(): boolean;
  emit(event: MonitorEvent): void;
}

export interface ServerScope {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly redact: (text: string) => string;
  config(): ServerConfig;
  settings(): MonitorSettings;
}

/** One log line about this server, redacted: servers echo what they were given, and the log leaves the core. */
export function say(scope: ServerScope, level: LogLevel, message: string): void {
  scope.logger[level](scope.redact(`${scope.config().name}: ${message}`));
}
