// What the dashboard webview receives: plain, redacted data per server, nothing it could execute. Text is translated
// here (the page only shows it); `health` and each beat's `outcome` are identifiers the page styles by.

import * as l10n from '@vscode/l10n';
import type { ServerError, ServerStatus } from '../core/model';
import { stderrFinding } from '../core/stderrCause';
import { describeState, healthOf, type Health } from './states';
import { healthSentence, summarize } from './summary';
import { hasUptime, uptimeWindowsText, type UptimeOf } from './uptime';

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
  readonly nextStep: string | null;
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

export function dashboardView(statuses: readonly ServerStatus[], uptimeOf?: UptimeOf): DashboardView {
  return { summary: statuses.length ? healthSentence(summarize(statuses)) : '', servers: dashboardServers(statuses, uptimeOf), texts: dashboardTexts() };
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

/** One sentence on what to try for an error, pointing at the card's Open Config / Show Log buttons. */
export function nextStepFor(error: ServerError, state: ServerStatus['state'], serverName?: string): string {
  switch (error.kind) {
    case 'exited': return exitedStep(error, serverName);
    case 'timeout': return state === 'down' ? l10n.t('No answer in time: the server may be hung or overloaded. Show Log has the probes; Reconnect to retry now.') : l10n.t('Show Log has the probes.');
    case 'unreachable': return l10n.t('Could not reach the server: check that it runs and that the command or URL in Open Config is right.');
    case 'protocol-violation': return l10n.t('The server answered against the MCP protocol: report it to its authors; Show Log has the exchange.');
    case 'auth': return l10n.t('The server wants credentials: add the header or token in Open Config.');
    case 'config': return l10n.t('Fix the entry in Open Config; the problem is marked in the file.');
    case 'input-required': return l10n.t('Supply the missing input (MCP Health: Supply Input…).');
    case 'sandbox': return l10n.t('The server asks for VS Code\'s sandbox, which cannot be set up here: install what the message names; it is never started without it.');
  }
}

/** What the stderr of an exited server names (a variable, a flag, a file), said for this server. */
function exitedStep(error: ServerError, serverName: string | undefined): string {
  const finding = stderrFinding(error.stderrTail);
  const name = serverName ?? l10n.t('this server');
  if (finding?.envVar) return l10n.t('The server needs the environment variable {0}: set it in the "env" of {1} in Open Config.', finding.envVar, name);
  if (finding?.flag) return l10n.t('The server needs the argument {0}: add it to the "args" of {1} in Open Config.', finding.flag, name);
  if (finding?.file) return l10n.t('The server could not find {0}: fix the path in the "args" or "cwd" of {1} in Open Config.', finding.file, name);
  return l10n.t('The server process exited: Show Log has its stderr; check its command and arguments in Open Config.');
}

export function dashboardServers(statuses: readonly ServerStatus[], uptimeOf?: UptimeOf): DashboardServer[] {
  return statuses.map((status) => {
    const kept = uptimeOf?.(status.config.id);
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
      health: healthOf(status),
      summary: describeState(status),
      transport: status.config.transport,
      p50Ms: status.stats.p50Ms,
      p95Ms: status.stats.p95Ms,
      uptimePercent: status.stats.uptimePercent,
      history: hasUptime(kept) ? uptimeWindowsText(kept) : null,
      restarts: status.restarts,
      lastError: status.lastError && status.state !== 'up' ? status.lastError.message : null,
      nextStep: status.lastError && status.state !== 'up' ? nextStepFor(status.lastError, status.state, status.config.name) : null,
      probeable: !['disabled', 'untrusted', 'needs-consent', 'config-error', 'needs-input', 'sandbox-unavailable'].includes(status.state),
      probes,
      beats,
    };
  });
}
