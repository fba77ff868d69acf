// The facts about one server, as rows: the tree's children, the tooltip, "Copy Details" and the report all use them.
// Server text (errors, stderr, serverInfo) arrives redacted: the monitor is the one boundary where it leaves the core.
// The config is shown only through describeTarget, which masks it.

import type { ServerStatus } from '../core/model';
import { stripControlSequences } from '../core/controlText';
import { describeTarget } from '../core/redact';
import { exitSummary, formatMs, plural, stateLabels } from './states';

export interface DetailRow {
  /** Stable within a server, so tree elements keep their identity across refreshes. */
  readonly key: string;
  readonly label: string;
  readonly value: string;
  /** A longer form for a tooltip, when the value had to be shortened. */
  readonly full?: string;
}

const STDERR_LINES = 5;

export function formatClockTime(wallMs: number): string {
  const date = new Date(wallMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function detailRows(status: ServerStatus): DetailRow[] {
  const { config } = status;
  const rows: DetailRow[] = [];
  rows.push({ key: 'transport', label: config.transport, value: describeTarget(config) });
  if (status.state === 'needs-consent') {
    rows.push({ key: 'consent', label: 'why', value: 'waiting for your consent: nothing of it is started or contacted until you allow it' });
  }
  if (status.state === 'untrusted') {
    rows.push({ key: 'trust', label: 'why', value: 'Restricted Mode: servers from workspace files are not started until you trust the workspace' });
  }
  if (status.era) {
    rows.push({ key: 'protocol', label: 'protocol', value: [status.era, status.protocolVersion].filter(Boolean).join(' · ') });
  }
  if (status.serverInfo) {
    const info = status.serverInfo;
    rows.push({ key: 'server', label: 'server', value: [info.title ?? info.name, info.version].filter(Boolean).join(' ') });
  }
  if (status.inventory) {
    rows.push({ key: 'tools', label: 'tools', value: inventorySummary(status) });
  }
  const lastProbe = status.stats.recent.at(-1);
  if (lastProbe && status.lastProbeAt !== null) {
    const rtt = lastProbe.rttMs !== undefined ? ` · ${formatMs(lastProbe.rttMs)}` : '';
    rows.push({ key: 'lastProbe', label: 'last probe', value: `${formatClockTime(status.lastProbeAt)} · ${lastProbe.method} ${lastProbe.outcome}${rtt}` });
  }
  if (status.stats.p50Ms !== null) {
    rows.push({ key: 'latency', label: 'latency', value: `p50 ${formatMs(status.stats.p50Ms)} · p95 ${formatMs(status.stats.p95Ms)}` });
  }
  if (status.stats.uptimePercent !== null) {
    rows.push({ key: 'uptime', label: 'uptime', value: `${formatPercent(status.stats.uptimePercent)} · ${status.stats.totals.ok}/${plural(status.stats.totals.sent, 'probe')} ok` });
  }
  if (status.consecutiveFailures > 0) {
    rows.push({ key: 'failures', label: 'failures', value: `${status.consecutiveFailures} in a row` });
  }
  if (status.restarts > 0 || status.flapping) {
    rows.push({ key: 'restarts', label: 'restarts', value: `${status.restarts}${status.flapping ? ' · flapping' : ''}` });
  }
  if (status.nonConformant) {
    rows.push({ key: 'conformance', label: 'conformance', value: 'answers ping against the protocol; probed with a fallback request' });
  }
  if (status.lastError) {
    const error = status.lastError;
    const exit = error.kind === 'exited' || error.exitCode !== undefined || error.signal ? ` (${exitSummary(error.exitCode, error.signal)})` : '';
    const http = error.httpStatus ? ` (HTTP ${error.httpStatus})` : '';
    const value = `${error.kind}: ${error.message}${exit}${http}`;
    rows.push({ key: 'lastError', label: 'last error', value: oneLine(value), full: value });
  }
  if (status.pid !== null) {
    rows.push({ key: 'pid', label: 'pid', value: String(status.pid) });
  }
  const stderr = status.stderrTail || status.lastError?.stderrTail || '';
  if (stderr.trim()) {
    const tail = lastLines(stderr, STDERR_LINES);
    rows.push({ key: 'stderr', label: 'stderr', value: oneLine(lastLines(tail, 1)), full: tail });
  }
  // Server-supplied text (serverInfo, errors, stderr) may carry terminal control sequences: no view wants them.
  return rows.map((row) => ({
    ...row,
    value: stripControlSequences(row.value),
    ...(row.full !== undefined ? { full: stripControlSequences(row.full) } : {}),
  }));
}

export function formatPercent(value: number): string {
  return `${value >= 99.95 || value === 0 ? Math.round(value) : value.toFixed(1)} %`;
}

export function lastLines(text: string, count: number): string {
  return text.replace(/\s+$/, '').split(/\r?\n/).slice(-count).join('\n');
}

function oneLine(text: string, max = 160): string {
  const line = text.replace(/\s*\r?\n\s*/g, ' ⏎ ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Plain text for "Copy Details". */
/** `7 tools · 1 prompt · 2 resources`, with `(incomplete)` and `· changed since the accepted baseline` when so. */
function inventorySummary(status: ServerStatus): string {
  const inventory = status.inventory;
  if (!inventory) return '';
  const parts: string[] = [];
  if (inventory.tools) parts.push(plural(inventory.tools.count, 'tool'));
  if (inventory.prompts) parts.push(plural(inventory.prompts.count, 'prompt'));
  if (inventory.resources) parts.push(plural(inventory.resources.count, 'resource'));
  const counts = parts.join(' · ') || 'none declared';
  const incomplete = inventory.complete ? '' : ' (incomplete)';
  return `${counts}${incomplete}${status.drift ? ' · changed since the accepted baseline' : ''}`;
}

export function detailsText(status: ServerStatus): string {
  const lines = [`${status.config.name}: ${stateLabels[status.state]}`, `source: ${status.config.source.file}:${status.config.source.line}`];
  for (const row of detailRows(status)) {
    lines.push(`${row.label}: ${row.full ?? row.value}`);
  }
  return lines.join('\n');
}
