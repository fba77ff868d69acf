// The ping log: one LogOutputChannel behind the core Logger. Its level is the user's choice (the channel's own
// "Set Log Level"), and it never opens itself: only "Show Ping Log" reveals it.

import * as vscode from 'vscode';
import type { Logger } from '../core/logger';

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
  };
  return {
    channel,
    logger,
    // preserveFocus: showing the log must not steal the cursor from the editor.
    show: () => channel.show(true),
    dispose: () => channel.dispose(),
  };
}
