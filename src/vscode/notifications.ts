// Tells the user when a server that was up goes down, suspect or needs authentication, within the rate limit.
// Failures that arrive together are shown as one notification; each server can be muted ("Don't Show Again for This
// Server", kept in globalState until "Reset Notifications"). A server still failing after the reminder interval is told
// again, through the same grouping and muting. After a wake, failures are held for a grace period: those that recover
// are logged only, the rest told once, together.

import * as vscode from 'vscode';
import type { Clock, TimerHandle } from '../core/clock';
import type { Logger } from '../core/logger';
import type { ServerStatus } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import { stripControlSequences } from '../core/controlText';
import { GROUP_WINDOW_MS, groupNotices, NotificationPolicy, type NoticeGroup, type PendingNotice } from '../present/notificationPolicy';
import { noticeText, serverView, type ViewContextOf } from '../present/serverView';
import type { NotificationLevel } from '../present/settingsModel';
import { isHealthy } from '../present/states';
import { WakeGrace } from '../present/wakeGrace';
import { serverElementId } from '../present/treeModel';
import { Commands } from '../present/commandIds';

const RECONNECT = vscode.l10n.t('Reconnect');
const SHOW_LOG = vscode.l10n.t('Show Log');
const OPEN_CONFIG = vscode.l10n.t('Open Config');
const MUTE_ONE = vscode.l10n.t("Don't Show Again for This Server");
const MUTE_ALL = vscode.l10n.t("Don't Show Again for These Servers");
const MUTED_KEY = 'mcpHealth.mutedServers';
/** How often due reminders are looked for while the reminder interval is on (whole minutes): within half a minute. */
const REMINDER_TICK_MS = 30_000;

export class StateNotifier implements vscode.Disposable {
  private readonly policy: NotificationPolicy;
  private readonly unsubscribe: () => void;
  private pending: PendingNotice[] = [];
  private groupTimer: TimerHandle | null = null;
  private reminderTimer: TimerHandle | null = null;
  /** After a wake, failures are held for a grace period and those not recovered told once (present/wakeGrace). */
  private readonly wakeGrace = new WakeGrace();
  private wakeTimer: TimerHandle | null = null;
  /** Notifications shown so far, per server id: what the rate limit is judged by. */
  readonly shown = new Map<string, number>();
  /** Every failure notification shown (one entry per toast), for the end-to-end suite. */
  readonly shownGroups: NoticeGroup[] = [];

  constructor(
    private readonly registry: MonitorRegistry,
    private readonly level: () => NotificationLevel,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly state: vscode.Memento,
    /** `mcpHealth.notificationReminderMinutes` in ms, read live; 0: never remind. */
    private readonly reminderMs: () => number = () => 0,
    /** What the editor knows beside the monitor (VS Code's own chat.mcp settings), for a failing server's notice. */
    private readonly contextOf: ViewContextOf = () => ({}),
  ) {
    this.policy = new NotificationPolicy(undefined, (id) => this.mutedIds().includes(id));
    this.unsubscribe = registry.onEvent((event) => {
      if (event.type === 'wake') {
        this.beginWakeGrace();
        return;
      }
      if (event.type !== 'state') {
        return;
      }
      // Only an announced failure can become due, and it arrives as a state change: no timer runs before one.
      this.scheduleReminders();
      const notice = this.policy.decide(event, this.level(), this.clock.wall());
      if (!notice) {
        return;
      }
      // The status is redacted by the monitor; what remains to remove is what a server could do to the UI.
      const message = stripControlSequences(notice.recovery ? notice.message : this.withView(notice.message, event.status));
      if (notice.recovery && this.wakeGrace.wasHeld(event.id)) {
        // Its failure was never shown: recovering is news for the log only.
        this.logger.info(`recovered after sleep (not notified): ${message}`);
        return;
      }
      if (notice.recovery) {
        this.logger.info(`notification: ${message}`);
        this.shown.set(event.id, (this.shown.get(event.id) ?? 0) + 1);
        void vscode.window.showInformationMessage(message);
        return;
      }
      const entry = { id: event.id, name: event.status.config.name, to: event.to, notice: { ...notice, message } };
      if (this.wakeGrace.hold(entry, this.clock.wall())) {
        this.logger.info(`after sleep, not notified yet: ${message}`);
        return;
      }
      this.enqueue(entry);
    });
  }

  private beginWakeGrace(): void {
    if (this.wakeTimer) this.clock.clearTimeout(this.wakeTimer);
    const now = this.clock.wall();
    const graceMs = this.wakeGrace.begin(now);
    // Waiting I/O (a connection that closed while asleep) can be handled before the wake is noticed: failures still
    // waiting for their group are part of the wake too.
    this.pending = this.pending.filter((entry) => !this.wakeGrace.hold(entry, now));
    this.wakeTimer = this.clock.setTimeout(() => {
      this.wakeTimer = null;
      const { notice, recovered } = this.wakeGrace.end((id) => {
        const status = this.registry.get(id);
        return status !== undefined && !isHealthy(status);
      });
      // Failures never shown leave no quiet period behind: the next real one is told.
      for (const id of recovered) this.policy.forget(id);
      if (notice) this.show(notice);
    }, graceMs);
  }

  private enqueue(entry: PendingNotice): void {
    this.pending.push(entry);
    // The first failure opens a short window; whatever else fails in it is told in the same notification.
    this.groupTimer ??= this.clock.setTimeout(() => this.flush(), GROUP_WINDOW_MS);
  }

  private scheduleReminders(): void {
    if (this.reminderTimer || !(this.reminderMs() > 0)) return;
    this.reminderTimer = this.clock.setTimeout(() => {
      this.reminderTimer = null;
      const reminderMs = this.reminderMs();
      if (!(reminderMs > 0)) return;
      for (const due of this.policy.remind(this.registry.list(), this.level(), reminderMs, this.clock.wall())) {
        const status = this.registry.get(due.id);
        const message = status ? this.withView(due.notice.message, status) : due.notice.message;
        this.enqueue({ ...due, notice: { ...due.notice, message: stripControlSequences(message) } });
      }
      // Once every announced server recovered, the next failure's state change starts the ticks again.
      if (this.policy.awaitingRecovery) this.scheduleReminders();
    }, REMINDER_TICK_MS);
  }

  /** The notice with the same why, next step and VS Code note as the tree and the tooltip (src/present/serverView.ts). */
  private withView(message: string, status: ServerStatus): string {
    return noticeText(message, serverView(status, this.contextOf(status)));
  }

  /** Forgets every "Don't Show Again" choice. */
  async resetMuted(): Promise<void> {
    await this.state.update(MUTED_KEY, undefined);
    this.logger.info('notifications: every server may notify again');
  }

  private mutedIds(): string[] {
    return this.state.get<string[]>(MUTED_KEY) ?? [];
  }

  private async mute(ids: readonly string[]): Promise<void> {
    await this.state.update(MUTED_KEY, [...new Set([...this.mutedIds(), ...ids])]);
    this.logger.info(`notifications: muted ${ids.length} server(s); MCP Health: Reset Notifications turns them on again`);
  }

  private flush(): void {
    this.groupTimer = null;
    const group = groupNotices(this.pending, (id) => {
      const status = this.registry.get(id);
      return status !== undefined && isHealthy(status);
    });
    this.pending = [];
    if (group) this.show(group);
  }

  private show(group: NoticeGroup): void {
    this.logger.info(`notification: ${group.message}`);
    this.shownGroups.push(group);
    for (const id of group.ids) {
      this.shown.set(id, (this.shown.get(id) ?? 0) + 1);
    }
    const show = group.severity === 'error' ? vscode.window.showErrorMessage : vscode.window.showWarningMessage;
    const single = group.ids.length === 1;
    const actions = single ? [RECONNECT, SHOW_LOG, OPEN_CONFIG, MUTE_ONE] : [SHOW_LOG, MUTE_ALL];
    // Notifications are fire-and-forget: the monitor must never wait on a user.
    void Promise.resolve(show(group.message, ...actions)).then((choice) => {
      if (choice === MUTE_ONE || choice === MUTE_ALL) {
        void this.mute(group.ids);
      } else {
        runAction(choice, serverElementId(group.ids[0] ?? ''));
      }
    });
  }

  dispose(): void {
    this.unsubscribe();
    if (this.groupTimer) {
      this.clock.clearTimeout(this.groupTimer);
      this.groupTimer = null;
    }
    if (this.reminderTimer) {
      this.clock.clearTimeout(this.reminderTimer);
      this.reminderTimer = null;
    }
    if (this.wakeTimer) {
      this.clock.clearTimeout(this.wakeTimer);
      this.wakeTimer = null;
    }
  }
}

function runAction(choice: string | undefined, element: string): void {
  const command =
    choice === RECONNECT
      ? Commands.reconnect
      : choice === SHOW_LOG
        ? Commands.showLog
        : choice === OPEN_CONFIG
          ? Commands.openConfig
          : undefined;
  if (command) {
    void vscode.commands.executeCommand(command, element);
  }
}
