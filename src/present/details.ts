// The facts about one server, as rows: the tree's children, the tooltip, "Copy Details" and the report all use them.
// Server text (errors, stderr, serverInfo) arrives redacted: the monitor is the one boundary where it leaves the core.
// The config is shown only through describeTarget, which masks it. Labels and values are display text (translated);
// `key` is the identifier.

import * as l10n from '@vscode/l10n';
import type { ServerStatus } from '../core/model';
import { stripControlSequences } from '../core/controlText';
import { stderrFinding } from '../core/stderrCause';
import { describeTarget } from '../core/redact';
import { certificateOf } from './certificate';
import { exitSummary, formatMs, stateLabels } from './states';

export interface DetailRow {
  /** Stable within a server, so tree elements keep their identity across refreshes. */
  readonly key: string;
  readonly label: string;
  readonly value: string;
  /** A longer form for a tooltip, when the value had to be shortened. */
  readonly full?: string;
  /** Shown with a warning icon (a certificate close to expiry). */
  readonly warning?: boolean;
}

const STDERR_LINES = 5;

export function formatClockTime(wallMs: number): string {
  const date = new Date(wallMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** `nowMs` (wall clock) dates what counts down, e.g. the days left on a certificate. */
export function detailRows(status: ServerStatus, nowMs: number = Date.now()): DetailRow[] {
  const { config } = status;
  const rows: DetailRow[] = [];
  rows.push({ key: 'transport', label: config.transport, value: describeTarget(config) });
  if (status.state === 'needs-consent') {
    rows.push({
      key: 'consent',
      label: l10n.t('why'),
      value: l10n.t('waiting for your consent: nothing of it is started or contacted until you allow it'),
    });
  }
  if (status.state === 'untrusted') {
    rows.push({
      key: 'trust',
      label: l10n.t('why'),
      value: l10n.t('Restricted Mode: servers from workspace files are not started until you trust the workspace'),
    });
  }
  if (config.sandbox) {
    const { filesystem, network } = config.sandbox;
    const value =
      status.state === 'sandbox-unavailable'
        ? l10n.t('sandboxed: not started: {0}', status.cause?.nextStep ?? status.lastError?.message ?? '')
        : l10n.t(
            "runs inside VS Code's sandbox: writes only to {0}; {1} unreadable; network to {2}",
            [...filesystem.allowWrite, '~/.npm', config.cwd ?? ''].filter(Boolean).join(', '),
            filesystem.denyRead.length ? filesystem.denyRead.join(', ') : l10n.t('nothing'),
            network.allowedDomains.length ? network.allowedDomains.join(', ') : l10n.t("npm's registry only"),
          );
    rows.push({ key: 'sandbox', label: l10n.t('sandbox'), value, ...(status.state === 'sandbox-unavailable' ? { warning: true } : {}) });
  }
  if (status.vscodeWontStart) {
    const block = status.vscodeWontStart;
    rows.push({ key: 'vscode', label: 'VS Code', value: `${block.summary}. ${l10n.t('Next: {0}', block.nextStep)}`, warning: true });
  }
  if (status.era) {
    rows.push({ key: 'protocol', label: l10n.t('protocol'), value: [status.era, status.protocolVersion].filter(Boolean).join(' · ') });
  }
  if (status.serverInfo) {
    const info = status.serverInfo;
    rows.push({ key: 'server', label: l10n.t('server'), value: [info.title ?? info.name, info.version].filter(Boolean).join(' ') });
  }
  if (status.inventory) {
    rows.push({ key: 'tools', label: l10n.t('tools'), value: inventorySummary(status) });
  }
  const certificate = certificateOf(status, nowMs);
  if (certificate) {
    rows.push({ key: 'certificate', label: 'certificate', value: certificate.expiry, ...(certificate.warning ? { warning: true } : {}) });
  }
  const lastProbe = status.stats.recent.at(-1);
  if (lastProbe && status.lastProbeAt !== null) {
    const rtt = lastProbe.rttMs !== undefined ? ` · ${formatMs(lastProbe.rttMs)}` : '';
    rows.push({
      key: 'lastProbe',
      label: l10n.t('last probe'),
      value: `${formatClockTime(status.lastProbeAt)} · ${lastProbe.method} ${lastProbe.outcome}${rtt}`,
    });
  }
  if (status.stats.p50Ms !== null) {
    rows.push({
      key: 'latency',
      label: l10n.t('latency'),
      value: l10n.t('p50 {0} · p95 {1}', formatMs(status.stats.p50Ms), formatMs(status.stats.p95Ms)),
    });
  }
  if (status.stats.uptimePercent !== null) {
    rows.push({
      key: 'uptime',
      label: l10n.t('uptime'),
      value: `${formatPercent(status.stats.uptimePercent)} · ${probesOk(status.stats.totals.ok, status.stats.totals.sent)}`,
    });
  }
  if (status.consecutiveFailures > 0) {
    rows.push({ key: 'failures', label: l10n.t('failures'), value: l10n.t('{0} in a row', status.consecutiveFailures) });
  }
  if (status.restarts > 0 || status.flapping) {
    rows.push({
      key: 'restarts',
      label: l10n.t('restarts'),
      value: status.flapping ? l10n.t('{0} · flapping', status.restarts) : String(status.restarts),
    });
  }
  if (status.nonConformant) {
    rows.push({
      key: 'conformance',
      label: l10n.t('conformance'),
      value: l10n.t('answers ping against the protocol; probed with a fallback request'),
    });
  }
  if (status.lastError) {
    const error = status.lastError;
    const exit =
      error.kind === 'exited' || error.exitCode !== undefined || error.signal ? ` (${exitSummary(error.exitCode, error.signal)})` : '';
    const http = error.httpStatus ? ` (${l10n.t('HTTP {0}', error.httpStatus)})` : '';
    const value = `${error.kind}: ${error.message}${exit}${http}`;
    rows.push({ key: 'lastError', label: l10n.t('last error'), value: oneLine(value), full: value });
  }
  if (status.pid !== null) {
    rows.push({ key: 'pid', label: l10n.t('pid'), value: String(status.pid) });
  }
  const stderr = status.stderrTail || status.lastError?.stderrTail || '';
  if (stderr.trim()) {
    const tail = lastLines(stderr, STDERR_LINES);
    // The line that explains the failure, not the runtime's trailer (`Node.js v20.20.2`) that usually ends it.
    const telling = stderrFinding(stderr)?.line;
    const full = telling === undefined || stripControlSequences(tail).includes(telling) ? tail : `${telling}\n…\n${tail}`;
    rows.push({ key: 'stderr', label: l10n.t('stderr'), value: oneLine(telling ?? lastLines(tail, 1)), full });
  }
  // Server-supplied text (serverInfo, errors, stderr) may carry terminal control sequences: no view wants them.
  return rows.map((row) => ({
    ...row,
    value: stripControlSequences(row.value),
    ...(row.full !== undefined ? { full: stripControlSequences(row.full) } : {}),
  }));
}

/** `7/9 probes ok`: the window's answered probes out of its size. */
function probesOk(ok: number, count: number): string {
  return count === 1 ? l10n.t('{0}/1 probe ok', ok) : l10n.t('{0}/{1} probes ok', ok, count);
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
  if (inventory.tools) parts.push(inventory.tools.count === 1 ? l10n.t('1 tool') : l10n.t('{0} tools', inventory.tools.count));
  if (inventory.prompts) parts.push(inventory.prompts.count === 1 ? l10n.t('1 prompt') : l10n.t('{0} prompts', inventory.prompts.count));
  if (inventory.resources)
    parts.push(inventory.resources.count === 1 ? l10n.t('1 resource') : l10n.t('{0} resources', inventory.resources.count));
  const counts = parts.join(' · ') || l10n.t('none declared');
  const incomplete = inventory.complete ? '' : ` ${l10n.t('(incomplete)')}`;
  return `${counts}${incomplete}${status.drift ? ` · ${l10n.t('changed since the accepted baseline')}` : ''}`;
}

export function detailsText(status: ServerStatus): string {
  const lines = [
    `${status.config.name}: ${stateLabels[status.state]}`,
    `${l10n.t('source')}: ${status.config.source.file}:${status.config.source.line}`,
  ];
  for (const row of detailRows(status)) {
    lines.push(`${row.label}: ${row.full ?? row.value}`);
  }
  return lines.join('\n');
}
