// The log interface the core writes to. The extension backs it with a LogOutputChannel, the CLI with stderr.
// Levels as the ping log uses them: info = each probe and state changes (the channel's default level shows both),
// debug = server stderr, warn = degraded / protocol violations, error = failures. Callers redact secrets before logging.

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /**
   * Whether a line at this level is written anywhere now; absent means always. A line built for every probe (the
   * CLI and the exporter log nothing; the ping log can be set above info) is not built for nobody.
   */
  enabled?(level: LogLevel): boolean;
}

export const silentLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  enabled: () => false,
};

/** Whether `logger` writes lines at `level`: check it before building a line that costs something. */
export function logs(logger: Logger, level: LogLevel): boolean {
  return logger.enabled?.(level) ?? true;
}
