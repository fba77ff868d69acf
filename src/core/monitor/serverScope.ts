// What every part of one server's monitor reads: the time, the log, the redactor, and the server and settings as they
// are now (both can change under a running monitor).

import type { Clock } from '../clock';
import type { Logger } from '../logger';
import type { ServerConfig } from '../model';
import type { MonitorSettings } from '../monitorTypes';

export interface ServerScope {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly redact: (text: string) => string;
  config(): ServerConfig;
  settings(): MonitorSettings;
}

/** One log line about this server, redacted: servers echo what they were given, and the log leaves the core. */
export function say(scope: ServerScope, level: keyof Logger, message: string): void {
  scope.logger[level](scope.redact(`${scope.config().name}: ${message}`));
}
