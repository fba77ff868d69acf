// Which state changes deserve a notification, and the rate limit that keeps a flapping server from spamming.
// Messages are whole translated sentences; the state each notice is about stays an identifier.

import * as l10n from '@vscode/l10n';
import type { ServerState, ServerStatus } from '../core/model';
import type { NotificationLevel } from './settingsModel';

export interface StateChange {
  readonly id: string;
  readonly from: ServerState;
  readonly to: ServerState;
  readonly reason: string;
  readonly status: ServerStatus;
}

export type NotificationSeverity = 'error' | 'warning' | 'info';

export interface Notice {
  readonly severity: NotificationSeverity;
  readonly message: string;
  /** Recovery notices carry no actions; failures offer Reconnect, Show Log and Open Config. */
  readonly recovery: boolean;
}

const failureStates: ReadonlySet<ServerState> = new Set<ServerState>(['down', 'gave-up', 'suspect', 'auth-required']);

/** At most one failure notice per server in this window; later failures go only to the log and the views. */
export const DEFAULT_QUIET_MS = 5 * 60_000;

export class NotificationPolicy {
  private readonly lastFailureNoticeAt = new Map<string, number>();
  /** Servers whose failure was announced, so their recovery can be announced too (level `all`). */
  private readonly announcedFailures = new Set<string>();
  /** When each announced failure was first told: what a reminder's "for N min" counts from. */
  private readonly failingSince = new Map<string, number>();

  /** `muted`: servers the user chose "Don't Show Again for This Server" for; the views and the log still show them. */
  constructor(
    private readonly quietMs: number = DEFAULT_QUIET_MS,
    private readonly muted: (id: string) => boolean = () => false,
  ) {}

  decide(change: StateChange, level: NotificationLevel, nowMs: number): Notice | undefined {
    if (level === 'off' || this.muted(change.id)) {
      return undefined;
    }
    const name = change.status.config.name;
    if (change.to === 'up') {
      const wasAnnounced = this.announcedFailures.delete(change.id);
      this.failingSince.delete(change.id);
      return level === 'all' && wasAnnounced
        ? { severity: 'info', message: l10n.t('MCP server "{0}" is up again.', name), recovery: true }
        : undefined;
    }
    if (!failureStates.has(change.to)) {
      return undefined;
    }
    const fromUp = change.from === 'up';
    const firstFailure = level === 'all' && (change.from === 'connecting' || change.from === 'idle' || change.from === 'starting');
    // Giving up on a crash loop is said once, whatever came before: nothing restarts it until the user does.
    const gaveUp = change.to === 'gave-up';
    if (!fromUp && !firstFailure && !gaveUp) {
      return undefined;
    }
    const last = this.lastFailureNoticeAt.get(change.id);
    if (!gaveUp && last !== undefined && nowMs - last < this.quietMs) {
      return undefined;
    }
    this.lastFailureNoticeAt.set(change.id, nowMs);
    this.announcedFailures.add(change.id);
    if (!this.failingSince.has(change.id)) this.failingSince.set(change.id, nowMs);
    return {
      severity: change.to === 'down' || change.to === 'gave-up' ? 'error' : 'warning',
      message: failureMessage(name, change),
      recovery: false,
    };
  }

  /** Whether any announced failure is still open: only then can a reminder fall due. */
  get awaitingRecovery(): boolean {
    return this.announcedFailures.size > 0;
  }

  /**
   * Reminders for servers whose failure was announced and that are still failing `reminderMs` after their last notice
   * (0: never). Muted servers and level `off` get none; a server that recovered in between was forgotten by decide().
   * Each reminder restarts that server's quiet period, so the next one comes `reminderMs` later.
   */
  remind(statuses: readonly ServerStatus[], level: NotificationLevel, reminderMs: number, nowMs: number): PendingNotice[] {
    if (level === 'off' || !(reminderMs > 0)) return [];
    const due: PendingNotice[] = [];
    for (const status of statuses) {
      const id = status.config.id;
      if (!this.announcedFailures.has(id) || !failureStates.has(status.state) || this.muted(id)) continue;
      const last = this.lastFailureNoticeAt.get(id);
      if (last === undefined || nowMs - last < reminderMs) continue;
      this.lastFailureNoticeAt.set(id, nowMs);
      const name = status.config.name;
      due.push({
        id,
        name,
        to: status.state,
        notice: {
          severity: status.state === 'down' ? 'error' : 'warning',
          message: reminderMessage(name, status, nowMs - (this.failingSince.get(id) ?? last)),
          recovery: false,
        },
      });
    }
    return due;
  }

  /** A server that left the configuration must not keep its quiet period if it comes back under the same id. */
  forget(id: string): void {
    this.lastFailureNoticeAt.delete(id);
    this.announcedFailures.delete(id);
    this.failingSince.delete(id);
  }
}

/** The reason comes from the monitor (the error as the server or the OS gave it); only the sentence is translated. */
function failureMessage(name: string, change: StateChange): string {
  const { reason } = change;
  switch (change.to) {
    case 'down':
      return reason ? l10n.t('MCP server "{0}" is down: {1}', name, reason) : l10n.t('MCP server "{0}" is down', name);
    case 'gave-up':
      return l10n.t('MCP server "{0}" keeps crashing: {1}; it is not restarted until you reconnect it', name, reason);
    case 'suspect':
      return reason
        ? l10n.t('MCP server "{0}" answered against the protocol: {1}', name, reason)
        : l10n.t('MCP server "{0}" answered against the protocol', name);
    default:
      return reason
        ? l10n.t('MCP server "{0}" needs authentication: {1}', name, reason)
        : l10n.t('MCP server "{0}" needs authentication', name);
  }
}

/** "MCP server "a" is still down (for 30 min): <cause>": what a reminder says, with the cause when one is known. */
function reminderMessage(name: string, status: ServerStatus, forMs: number): string {
  const minutes = Math.max(1, Math.round(forMs / 60_000));
  const cause = status.cause ? `: ${status.cause.summary}` : '';
  switch (status.state) {
    case 'down':
      return l10n.t('MCP server "{0}" is still down (for {1} min){2}', name, minutes, cause);
    case 'suspect':
      return l10n.t('MCP server "{0}" still answers against the protocol (for {1} min){2}', name, minutes, cause);
    default:
      return l10n.t('MCP server "{0}" still needs authentication (for {1} min){2}', name, minutes, cause);
  }
}

/** Failures that arrive within this window of the first are shown as one notification. */
export const GROUP_WINDOW_MS = 1_500;
const GROUP_NAMES_SHOWN = 4;

export interface PendingNotice {
  readonly id: string;
  readonly name: string;
  readonly to: ServerState;
  readonly notice: Notice;
}

export interface NoticeGroup {
  readonly severity: NotificationSeverity;
  readonly message: string;
  readonly ids: readonly string[];
}

/**
 * "3 MCP servers are down: a, b, c" for failures that arrived together; one notice stays as it was. `recovered` says
 * which servers are healthy again by the time the notice is shown: the notice then says they came back, so it never
 * contradicts the status bar.
 */
export function groupNotices(pending: readonly PendingNotice[], recovered: (id: string) => boolean = () => false): NoticeGroup | undefined {
  const [first] = pending;
  if (!first) {
    return undefined;
  }
  const ids = pending.map((entry) => entry.id);
  const back = pending.filter((entry) => recovered(entry.id));
  if (back.length === pending.length) {
    const names = nameList(
      pending.slice(0, GROUP_NAMES_SHOWN).map((entry) => `"${entry.name}"`),
      pending.length,
    );
    const message =
      pending.length === 1
        ? l10n.t('{0} (up again)', first.notice.message)
        : l10n.t('{0} MCP servers failed and are up again: {1}', pending.length, names);
    return { severity: 'warning', message, ids };
  }
  if (pending.length === 1) {
    return { severity: first.notice.severity, message: first.notice.message, ids };
  }
  const allDown = pending.every((entry) => entry.to === 'down');
  const names = pending.slice(0, GROUP_NAMES_SHOWN).map((entry) => {
    const state = recovered(entry.id) ? l10n.t('up again') : allDown ? undefined : problemWord(entry.to);
    return state ? l10n.t('"{0}" ({1})', entry.name, state) : `"${entry.name}"`;
  });
  const list = nameList(names, pending.length);
  const count = pending.length;
  // One whole sentence per case, so a translator sees each as the user reads it.
  const message =
    back.length > 0
      ? allDown
        ? l10n.t('{0} MCP servers went down: {1}', count, list)
        : l10n.t('{0} MCP servers had problems: {1}', count, list)
      : allDown
        ? l10n.t('{0} MCP servers are down: {1}', count, list)
        : l10n.t('{0} MCP servers have problems: {1}', count, list);
  return {
    severity: pending.some((entry) => entry.notice.severity === 'error') ? 'error' : 'warning',
    message,
    ids,
  };
}

/** `"a", "b", "c" and 2 more`: the names shown, and how many of `total` were left out. */
function nameList(shown: readonly string[], total: number): string {
  const names = shown.join(', ');
  return total > shown.length ? l10n.t('{0} and {1} more', names, total - shown.length) : names;
}

function problemWord(state: ServerState): string {
  if (state === 'gave-up') return l10n.t('given up on after repeated crashes');
  return state === 'down' ? l10n.t('down') : state === 'suspect' ? l10n.t('suspect') : l10n.t('needs authentication');
}
