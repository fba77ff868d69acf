// "Copy Status Report": one Markdown table a user can paste into an issue. Redacted like every other view.

import type { ServerStatus } from '../../core/model';
import { describeTarget } from '../../core/redact';
import { formatClockTime, formatPercent, redactFor } from './details';
import { describeState, formatMs } from './states';
import { summarize } from './summary';

export function statusReportMarkdown(statuses: readonly ServerStatus[], nowWallMs: number, displayPath: (file: string) => string): string {
  const summary = summarize(statuses);
  const lines = [
    `## MCP server health (${formatLocalDate(nowWallMs)} ${formatClockTime(nowWallMs)})`,
    '',
    `${summary.healthy}/${summary.monitored} monitored servers healthy; ${statuses.length} configured.`,
    '',
  ];
  if (statuses.length === 0) {
    return lines.join('\n');
  }
  lines.push('| Server | State | Transport | Target | RTT | p50 / p95 | Uptime | Restarts | Source | Last error |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const status of statuses) {
    const redact = redactFor(status);
    const { config, stats } = status;
    const cells = [
      config.name,
      describeState(status),
      config.transport,
      redact(describeTarget(config)),
      formatMs(status.lastRttMs),
      stats.p50Ms === null ? '–' : `${formatMs(stats.p50Ms)} / ${formatMs(stats.p95Ms)}`,
      stats.uptimePercent === null ? '–' : formatPercent(stats.uptimePercent),
      String(status.restarts),
      `${displayPath(config.source.file)}:${config.source.line}`,
      status.lastError ? redact(`${status.lastError.kind}: ${status.lastError.message}`) : '',
    ];
    lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
  }
  return lines.join('\n') + '\n';
}

function escapeCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The local calendar day, to match the local clock time beside it (toISOString would give the UTC day). */
function formatLocalDate(wallMs: number): string {
  const date = new Date(wallMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
