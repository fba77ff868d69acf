// The ping log: one LogOutputChannel behind the core Logger. Its level is the user's choice (the channel's own
// "Set Log Level"), and it never opens itself: only "Show Ping Log" reveals it.

import * as vscode from 'vscode';
import type { Logger, LogLevel } from '../core/logger';

const CHANNEL_LEVEL: Readonly<Record<LogLevel, vscode.LogLevel>> = {
  trace: vscode.LogLevel.Trace,
  debug: vscode.LogLevel.Debug,
  info: vscode.LogLevel.Info,
  warn: vscode.LogLevel.Warning,
  error: vscode.LogLevel.Error,
};

export interface PingLog extends vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;
  readonly logger: Logger;
  show(): void;
}

export function createPingLog(): PingLog {
  const channel = vscode.window.createOutputChannel('MCP Health', { log: true });
  const logger: Logger = {
    trace: (message) => channel.trace(message),
    debug: (message) => channel.debug(message),
    info: (message) => channel.info(message),
    warn: (message) => channel.warn(message),
    error: (message) => channel.error(message),
    // The level the user chose for the channel ("Set Log Level"): Off writes nothing, each other level that and above.
    enabled: (level) => channel.logLevel !== vscode.LogLevel.Off && channel.logLevel <= CHANNEL_LEVEL[level],
  };
  return {
    channel,
    logger,
    // preserveFocus: showing the log must not steal the cursor from the editor.
    show: () => channel.show(true),
    dispose: () => channel.dispose(),
  };
}
