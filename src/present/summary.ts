// The aggregate every view shows: how many monitored servers are healthy (states.ts `isHealthy`, defined once), the
// worst problem among them, and the brief feedback after a manual ping. Pure and vscode-free: the CLI shares it.
// Sentences go through @vscode/l10n; the status bar text is icons, counts and the product name, so it is not.

import * as l10n from '@vscode/l10n';
import type { ProbeResult, ServerStatus } from '../core/model';
import { healthOf, isHealthy, isMonitored, isSlow } from './states';

export type WorstHealth = 'ok' | 'warning' | 'error' | 'none';

/** What the summary needs of a server: a ServerStatus, or the CLI's report of one. */
export type SummaryInput = Pick<ServerStatus, 'state' | 'flapping' | 'restarts' | 'slow'> & { readonly lastError: unknown };

export interface HealthSummary {
  /** Monitored servers that are healthy: up and not flapping. The numerator of every count the user sees. */
  readonly healthy: number;
  /** Servers under watch: disabled and Restricted-Mode servers do not count. */
  readonly monitored: number;
  readonly total: number;
  /** Monitored servers on their first connect. Reconnects after a failure do not count: a crash loop must not spin. */
  readonly starting: number;
  /** Listed but not started until the user allows them. */
  readonly waitingForConsent: number;
  /** Monitored servers with a problem (health error or warning): the tree badge. Starting and verifying ones are not. */
  readonly problems: number;
  /** Monitored servers that are up but slower than their threshold (states.ts `isSlow`): counted apart from healthy. */
  readonly slow: number;
  readonly worst: WorstHealth;
}

export function summarize(statuses: readonly SummaryInput[]): HealthSummary {
  let healthy = 0;
  let monitored = 0;
  let starting = 0;
  let waitingForConsent = 0;
  let problems = 0;
  let slow = 0;
  let worst: WorstHealth = 'none';
  for (const status of statuses) {
    if (status.state === 'needs-consent') {
      waitingForConsent++;
    }
    if (!isMonitored(status)) {
      continue;
    }
    monitored++;
    if (isSlow(status)) {
      slow++;
    }
    if (isHealthy(status)) {
      healthy++;
    } else if (
      status.state === 'starting' ||
      ((status.state === 'connecting' || status.state === 'idle') && status.lastError === null && status.restarts === 0)
    ) {
      starting++;
    }
    const health = healthOf(status);
    if (health === 'error' || health === 'warning') {
      problems++;
    }
    if (health === 'error') {
      worst = 'error';
    } else if (health === 'warning' && worst !== 'error') {
      worst = 'warning';
    } else if (worst === 'none') {
      worst = 'ok';
    }
  }
  return { healthy, monitored, total: statuses.length, starting, waitingForConsent, problems, slow, worst };
}

/** `$(pulse) MCP 4/5 $(warning)`, `MCP 4/5 $(warning) 1 slow`: the count and the worst problem at a glance. */
export function statusBarText(summary: HealthSummary, busy: boolean): string {
  // Spinning while servers start: "0/3" alone would read as three servers down.
  const icon = busy || summary.starting > 0 ? '$(loading~spin)' : '$(pulse)';
  if (summary.total === 0) {
    return `${icon} MCP`;
  }
  const problem = summary.worst === 'error' ? ' $(error)' : summary.worst === 'warning' ? ' $(warning)' : '';
  // "MCP 0/0" alone would hide that servers are there, waiting for the user's Allow.
  const waiting = summary.waitingForConsent > 0 ? ` $(shield) ${summary.waitingForConsent}` : '';
  // Slow servers are up: "4/5" alone would read as one down, so they are counted apart.
  const slow = summary.slow > 0 ? ` ${slowCount(summary.slow)}` : '';
  return `${icon} MCP ${summary.healthy}/${summary.monitored}${problem}${slow}${waiting}`;
}

/** "1 slow": the count of slow servers, in every view that counts them. */
export function slowCount(count: number): string {
  return l10n.t('{0} slow', count);
}

/** "2 of 5 MCP servers healthy": the sentence form, for the dashboard, the tooltip and screen readers. */
export function healthSentence(summary: HealthSummary): string {
  const healthy =
    summary.monitored === 1
      ? l10n.t('{0} of 1 monitored server healthy', summary.healthy)
      : l10n.t('{0} of {1} monitored servers healthy', summary.healthy, summary.monitored);
  return summary.slow > 0 ? l10n.t('{0}, {1}', healthy, slowCount(summary.slow)) : healthy;
}

/** The tree badge: the number of servers with a problem, or nothing. */
export function badgeFor(summary: HealthSummary): { readonly value: number; readonly tooltip: string } | undefined {
  return summary.problems > 0
    ? {
        value: summary.problems,
        tooltip:
          summary.problems === 1
            ? l10n.t('1 MCP server with a problem; {0}', healthSentence(summary))
            : l10n.t('{0} MCP servers with a problem; {1}', summary.problems, healthSentence(summary)),
      }
    : undefined;
}

/** "4 ok", "1 timed out": each outcome with its count, one message each, translated when called. */
function outcomeCount(outcome: ProbeResult['outcome'] | 'not-probed', count: number): string {
  switch (outcome) {
    case 'ok':
      return l10n.t('{0} ok', count);
    case 'timeout':
      return l10n.t('{0} timed out', count);
    case 'error-reply':
      return l10n.t('{0} answered with an error', count);
    case 'non-empty':
      return l10n.t('{0} answered against the protocol', count);
    case 'closed':
      return l10n.t('{0} lost the connection', count);
    case 'auth':
      return l10n.t('{0} refused (auth)', count);
    case 'failed':
      return l10n.t('{0} failed', count);
    case 'not-probed':
      return l10n.t('{0} not probed', count);
  }
}

/** After a manual "ping all": "5 pinged: 4 ok, 1 timed out". `asked` counts servers that could be pinged. */
export function pingOutcomeText(list: readonly ProbeResult[], asked: number): string {
  if (asked === 0 && list.length === 0) {
    return l10n.t('nothing to ping');
  }
  const counts = new Map<ProbeResult['outcome'] | 'not-probed', number>();
  for (const result of list) {
    counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
  }
  const notProbed = Math.max(0, asked - list.length);
  if (notProbed > 0) {
    counts.set('not-probed', notProbed);
  }
  // ok first, then the failures in the order they were counted.
  const parts = [...counts.entries()]
    .sort((a, b) => (a[0] === 'ok' ? -1 : b[0] === 'ok' ? 1 : 0))
    .map(([outcome, count]) => outcomeCount(outcome, count));
  return l10n.t('{0} pinged: {1}', Math.max(asked, list.length), parts.join(', '));
}

/** The status bar form of the ping outcome, with an icon saying whether all answered. */
export function pingOutcomeStatusText(text: string, allOk: boolean): string {
  return `${allOk ? '$(check)' : '$(warning)'} MCP ${text}`;
}
