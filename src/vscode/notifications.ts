// Tells the user when a server that was up goes down, suspect or needs authentication, within the rate limit.

import * as vscode from 'vscode';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { MonitorRegistry } from '../core/monitorTypes';
import { stripControlSequences } from '../core/controlText';
import { NotificationPolicy } from './present/notificationPolicy';
import type { NotificationLevel } from './present/settingsModel';
import { serverElementId } from './present/treeModel';

const RECONNECT = 'Reconnect';
const SHOW_LOG = 'Show Log';
const OPEN_CONFIG = 'Open Config';

export class StateNotifier implements vscode.Disposable {
  private readonly policy = new NotificationPolicy();
  private readonly unsubscribe: () => void;
  /** Notifications shown so far, per server id: what the rate limit is judged by. */
  readonly shown = new Map<string, number>();

  constructor(registry: MonitorRegistry, private readonly level: () => NotificationLevel, private readonly clock: Clock, private readonly logger: Logger) {
    this.unsubscribe = registry.onEvent((event) => {
      if (event.type !== 'state') {
        return;
      }
      const notice = this.policy.decide(event, this.level(), this.clock.wall());
      if (!notice) {
        return;
      }
      // The status is redacted by the monitor; what remains to remove is what a server could do to the UI.
      const message = stripControlSequences(notice.message);
      this.logger.info(`notification: ${message}`);
      this.shown.set(event.id, (this.shown.get(event.id) ?? 0) + 1);
      if (notice.recovery) {
        void vscode.window.showInformationMessage(message);
        return;
      }
      const show = notice.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
      // Notifications are fire-and-forget: the monitor must never wait on a user.
      void Promise.resolve(show(message, RECONNECT, SHOW_LOG, OPEN_CONFIG)).then((choice) => runAction(choice, serverElementId(event.id)));
    });
  }

  dispose(): void {
    this.unsubscribe();
  }
}

function runAction(choice: string | undefined, element: string): void {
  const command = choice === RECONNECT ? 'mcpHealth.reconnect' : choice === SHOW_LOG ? 'mcpHealth.showLog' : choice === OPEN_CONFIG ? 'mcpHealth.openConfig' : undefined;
  if (command) {
    void vscode.commands.executeCommand(command, element);
  }
}
