// What the dashboard webview receives: plain, redacted data per server, nothing it could execute. Text is translated
// here (the page only shows it); `health` and each beat's `outcome` are identifiers the page styles by.

import * as l10n from '@vscode/l10n';
import type { ServerStatus } from '../core/model';
import { serverView, type ViewContextOf } from './serverView';
import type { Health } from './states';
import { healthSentence, summarize } from './summary';
import { hasUptime, uptimeWindowsText } from './uptime';

export interface DashboardServer {
  readonly id: string;
  readonly name: string;
  readonly health: Health;
  readonly summary: string;
  readonly transport: string;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly uptimePercent: number | null;
  /** Uptime over 1 h / 24 h / 7 d from the history kept across reloads; null before there is any. */
  readonly history: string | null;
  readonly restarts: number;
  /** The last error (redacted), while the server is not up; with what to do about it. */
  readonly lastError: string | null;
  /** Why it is not up and the next step: the same words as the tree, the tooltips, notifications and the CLI. */
  readonly why: string | null;
  readonly nextStep: string | null;
  /** VS Code will not start it (its chat.mcp settings), and what to change. */
  readonly note: string | null;
  /** False for servers that cannot be probed now (disabled, Restricted Mode, config error, waiting for input). */
  readonly probeable: boolean;
  readonly probes: ReadonlyArray<DashboardBeat>;
  /**
   * The heartbeat bar: recent probes and restarts in time order. A crash-looping server may answer every probe it gets
   * between crashes; its restarts must show in the bar too, or it would look healthy there.
   */
  readonly beats: ReadonlyArray<DashboardBeat>;
}

export interface DashboardBeat {
  readonly at: number;
  readonly ok: boolean;
  readonly rttMs: number | null;
  /** A probe outcome, or `restart` for a reconnect after the connection was lost. */
  readonly outcome: string;
}

export const DASHBOARD_PROBES = 40;

/** What the page shows above the cards: the same count as the status bar and the tree badge. */
export interface DashboardView {
  readonly summary: string;
  readonly servers: readonly DashboardServer[];
  readonly texts: DashboardTexts;
}

export function dashboardView(statuses: readonly ServerStatus[], contextOf?: ViewContextOf): DashboardView {
  return {
    summary: statuses.length ? healthSentence(summarize(statuses)) : '',
    servers: dashboardServers(statuses, contextOf),
    texts: dashboardTexts(),
  };
}

/**
 * The page's own words, translated here because the webview has no translation of its own. `{0}`… are filled in by
 * the page with its figures, so a translator still sees whole sentences.
 */
export function dashboardTexts() {
  return {
    ping: l10n.t('Ping'),
    reconnect: l10n.t('Reconnect'),
    openConfig: l10n.t('Open Config'),
    openConfigTitle: l10n.t('Open the file that declares this server'),
    showLog: l10n.t('Show Log'),
    showLogTitle: l10n.t('Open the ping log'),
    probesAnswered: l10n.t('{0} of {1} recent probes answered'),
    probesAnsweredRestarts: l10n.t('{0} of {1} recent probes answered, {2} restarts'),
    notEnoughProbes: l10n.t('latency: not enough probes yet'),
    waitingForProbes: l10n.t('waiting for probes'),
    latency: l10n.t('latency of the last {0} probes: p50 {1}, p95 {2}, max {3}'),
    stats: l10n.t('p50 {0} · p95 {1} · uptime {2} · restarts {3}'),
    ms: l10n.t('{0} ms'),
    lastError: l10n.t('Last error: {0}'),
    nextStep: l10n.t('Next step: {0}'),
    historyUptime: l10n.t('Uptime {0}'),
  } as const;
}

export type DashboardTexts = ReturnType<typeof dashboardTexts>;

export function dashboardServers(statuses: readonly ServerStatus[], contextOf: ViewContextOf = () => ({})): DashboardServer[] {
  return statuses.map((status) => {
    const context = contextOf(status);
    const view = serverView(status, context);
    const kept = context.uptime;
    const probes: DashboardBeat[] = status.stats.recent.slice(-DASHBOARD_PROBES).map((probe) => ({
      at: probe.at,
      ok: probe.outcome === 'ok',
      rttMs: probe.rttMs ?? null,
      outcome: probe.outcome,
    }));
    const restarts: DashboardBeat[] = status.stats.restartTimes.map((at) => ({ at, ok: false, rttMs: null, outcome: 'restart' }));
    const beats = [...probes, ...restarts].sort((a, b) => a.at - b.at).slice(-DASHBOARD_PROBES);
    return {
      id: status.config.id,
      name: status.config.name,
      health: view.health,
      summary: view.stateText,
      transport: status.config.transport,
      p50Ms: status.stats.p50Ms,
      p95Ms: status.stats.p95Ms,
      uptimePercent: status.stats.uptimePercent,
      history: hasUptime(kept) ? uptimeWindowsText(kept) : null,
      restarts: status.restarts,
      // A cause that is the error's own words (a missing sandbox) is said once.
      lastError: view.lastError !== view.cause?.summary ? view.lastError : null,
      why: view.cause?.summary ?? null,
      nextStep: view.nextStep,
      note: view.vscodeNote,
      probeable: view.probeable,
      probes,
      beats,
    };
  });
}
