// "Copy Status Report": one Markdown table a user can paste into an issue. Status text arrives redacted from the
// monitor; the config is shown through describeTarget, which masks it. Headings and sentences are translated.

import * as l10n from '@vscode/l10n';
import type { ServerStatus } from '../core/model';
import { stripControlSequences } from '../core/controlText';
import { describeTarget } from '../core/redact';
import { formatClockTime, formatPercent } from './details';
import { serverView, type ViewContextOf } from './serverView';
import { formatMs } from './states';
import { slowCount, summarize } from './summary';

/** `contextOf`: what the editor knows beside the monitor (VS Code's chat.mcp settings), as the other views get it. */
export function statusReportMarkdown(
  statuses: readonly ServerStatus[],
  nowWallMs: number,
  displayPath: (file: string) => string,
  contextOf: ViewContextOf = () => ({}),
): string {
  const summary = summarize(statuses);
  const lines = [
    `## ${l10n.t('MCP server health ({0} {1})', formatLocalDate(nowWallMs), formatClockTime(nowWallMs))}`,
    '',
    summary.slow > 0
      ? l10n.t(
          '{0}/{1} monitored servers healthy, {2}; {3} configured.',
          summary.healthy,
          summary.monitored,
          slowCount(summary.slow),
          statuses.length,
        )
      : l10n.t('{0}/{1} monitored servers healthy; {2} configured.', summary.healthy, summary.monitored, statuses.length),
    '',
  ];
  if (statuses.length === 0) {
    return lines.join('\n');
  }
  const headings = [
    l10n.t('Server'),
    l10n.t('State'),
    l10n.t('Transport'),
    l10n.t('Target'),
    l10n.t('RTT'),
    l10n.t('p50 / p95'),
    l10n.t('Uptime'),
    l10n.t('Restarts'),
    l10n.t('Source'),
    l10n.t('Last error'),
    l10n.t('Why / next step'),
  ];
  lines.push(`| ${headings.map(escapeCell).join(' | ')} |`);
  lines.push(`|${'---|'.repeat(headings.length)}`);
  for (const status of statuses) {
    const { config, stats } = status;
    // The same state line, why and next step as the tree, the tooltips and the dashboard.
    const view = serverView(status, { ...contextOf(status), nowMs: nowWallMs, uptime: null });
    const cells = [
      config.name,
      view.stateText,
      config.transport,
      describeTarget(config),
      formatMs(status.lastRttMs),
      stats.p50Ms === null ? '–' : `${formatMs(stats.p50Ms)} / ${formatMs(stats.p95Ms)}`,
      stats.uptimePercent === null ? '–' : formatPercent(stats.uptimePercent),
      String(status.restarts),
      `${displayPath(config.source.file)}:${config.source.line}`,
      status.lastError ? `${status.lastError.kind}: ${status.lastError.message}` : '',
      [view.causeLine, view.vscodeNote].filter(Boolean).join(' '),
    ];
    lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
  }
  return lines.join('\n') + '\n';
}

/**
 * A cell cannot break the table, start a link, an HTML tag or a code span, nor carry a terminal control sequence:
 * the report is pasted into issues and terminals.
 */
function escapeCell(text: string): string {
  return stripControlSequences(text)
    .replace(/[\\|<>[\]`]/g, (c) => `\\${c}`)
    .replace(/\r?\n/g, ' ');
}

/** The local calendar day, to match the local clock time beside it (toISOString would give the UTC day). */
function formatLocalDate(wallMs: number): string {
  const date = new Date(wallMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
