// The log interface the core writes to. The extension backs it with a LogOutputChannel, the CLI with stderr.
// Levels as the ping log uses them: info = each probe and state changes (the channel's default level shows both),
// debug = server stderr, warn = degraded / protocol violations, error = failures. Callers redact secrets before logging.

export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const silentLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
