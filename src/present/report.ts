// "Copy Status Report": one Markdown table a user can paste into an issue. Status text arrives redacted from the
// monitor; the config is shown through describeTarget, which masks it.

import type { ServerStatus } from '../core/model';
import { stripControlSequences } from '../core/controlText';
import { describeTarget } from '../core/redact';
import { formatClockTime, formatPercent } from './details';
import { describeState, formatMs } from './states';
import { slowCount, summarize } from './summary';

export function statusReportMarkdown(statuses: readonly ServerStatus[], nowWallMs: number, displayPath: (file: string) => string): string {
  const summary = summarize(statuses);
  const lines = [
    `## MCP server health (${formatLocalDate(nowWallMs)} ${formatClockTime(nowWallMs)})`,
    '',
    `${summary.healthy}/${summary.monitored} monitored servers healthy${summary.slow > 0 ? `, ${slowCount(summary.slow)}` : ''}; ${statuses.length} configured.`,
    '',
  ];
  if (statuses.length === 0) {
    return lines.join('\n');
  }
  lines.push('| Server | State | Transport | Target | RTT | p50 / p95 | Uptime | Restarts | Source | Last error |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const status of statuses) {
    const { config, stats } = status;
    const cells = [
      config.name,
      describeState(status),
      config.transport,
      describeTarget(config),
      formatMs(status.lastRttMs),
      stats.p50Ms === null ? '–' : `${formatMs(stats.p50Ms)} / ${formatMs(stats.p95Ms)}`,
      stats.uptimePercent === null ? '–' : formatPercent(stats.uptimePercent),
      String(status.restarts),
      `${displayPath(config.source.file)}:${config.source.line}`,
      status.lastError ? `${status.lastError.kind}: ${status.lastError.message}` : '',
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
  return stripControlSequences(text).replace(/[\\|<>[\]`]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

/** The local calendar day, to match the local clock time beside it (toISOString would give the UTC day). */
function formatLocalDate(wallMs: number): string {
  const date = new Date(wallMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
