// Notifications after a wake. Right after a laptop wakes, most servers fail once (expired sessions, a network that is
// not back yet) and recover on their own within seconds: telling the user about each is the storm people complain of.
// During a short grace after the wake, failures are logged, not shown; once it ends, the servers still failing are
// told once, in one notification. Pure: the time is passed in.

import * as l10n from '@vscode/l10n';
import type { NoticeGroup, PendingNotice } from './notificationPolicy';

/**
 * How long after a wake failures are held back. Wi-Fi re-associates and DHCP answers in 2-10 s, a VPN client
 * reconnects in 10-20 s, an HTTP session that expired reconnects in one back-off step (1 s) and a stdio server that
 * was stopped restarts in a few seconds: 30 s covers those, and still tells about a real outage within half a minute.
 */
export const WAKE_GRACE_MS = 30_000;
const NAMES_SHOWN = 4;

export class WakeGrace {
  private until: number | null = null;
  private readonly held = new Map<string, PendingNotice>();

  constructor(private readonly graceMs: number = WAKE_GRACE_MS) {}

  /** The machine woke: failures until `nowMs + graceMs` are held. A second wake meanwhile extends the grace. */
  begin(nowMs: number): number {
    this.until = nowMs + this.graceMs;
    return this.graceMs;
  }

  active(nowMs: number): boolean {
    return this.until !== null && nowMs < this.until;
  }

  /** A failure notice during the grace is held (true): the caller logs it instead of showing it. */
  hold(entry: PendingNotice, nowMs: number): boolean {
    if (!this.active(nowMs)) return false;
    this.held.set(entry.id, entry);
    return true;
  }

  /** Whether a server's failure was held back: its recovery is then logged only (the user never saw the failure). */
  wasHeld(id: string): boolean {
    return this.held.has(id);
  }

  /**
   * The grace is over: one notice for the held servers still failing ("3 MCP servers did not recover after sleep: a, b,
   * c"), or none when every one recovered; `recovered` lists the held servers that came back (never told about, so
   * the notification policy forgets them). Each server is told once: what was held is forgotten.
   */
  end(stillFailing: (id: string) => boolean): { readonly notice: NoticeGroup | undefined; readonly recovered: readonly string[] } {
    this.until = null;
    const held = [...this.held.values()];
    this.held.clear();
    const failing = held.filter((entry) => stillFailing(entry.id));
    const recovered = held.filter((entry) => !failing.includes(entry)).map((entry) => entry.id);
    return { notice: groupOf(failing), recovered };
  }
}

function groupOf(failing: readonly PendingNotice[]): NoticeGroup | undefined {
  const [first] = failing;
  if (!first) return undefined;
  const ids = failing.map((entry) => entry.id);
  const severity = failing.some((entry) => entry.notice.severity === 'error') ? 'error' : 'warning';
  if (failing.length === 1) {
    return { severity, message: l10n.t('After sleep: {0}', first.notice.message), ids };
  }
  const shown = failing
    .slice(0, NAMES_SHOWN)
    .map((entry) => `"${entry.name}"`)
    .join(', ');
  const names = failing.length > NAMES_SHOWN ? l10n.t('{0} and {1} more', shown, failing.length - NAMES_SHOWN) : shown;
  return { severity, message: l10n.t('{0} MCP servers did not recover after sleep: {1}', failing.length, names), ids };
}
