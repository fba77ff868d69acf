// Turns monitor snapshots into the CLI's JSON documents and readable tables. Pure: no I/O.

import * as path from 'node:path';
import type { ConfigDiagnostic, ServerState, ServerStatus } from '../core/model';
import { describeTarget, redactText } from '../core/redact';
import { depthFields, toolsCell, type DepthFields } from './depthReport';

export interface ServerReport extends DepthFields {
  readonly id: string;
  readonly name: string;
  readonly source: { readonly file: string; readonly line: number; readonly column: number; readonly format: string; readonly scope: string };
  readonly transport: string;
  readonly target: string;
  readonly state: ServerState;
  readonly era: string | null;
  readonly protocolVersion: string | null;
  readonly serverInfo: { readonly name: string; readonly version?: string } | null;
  readonly rttMs: number | null;
  readonly error: { readonly kind: string; readonly message: string } | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly restarts: number;
  readonly flapping: boolean;
  readonly nonConformant: boolean;
  readonly missingInputs?: readonly string[];
}

function round(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms * 100) / 100;
}

export function serverReport(status: ServerStatus): ServerReport {
  const { config } = status;
  const secrets = config.secretValues ?? [];
  const error = status.lastError && status.state !== 'up'
    ? { kind: status.lastError.kind, message: redactText(status.lastError.message, secrets) }
    : status.state === 'suspect' && status.lastError
      ? { kind: status.lastError.kind, message: redactText(status.lastError.message, secrets) }
      : null;
  return {
    id: config.id,
    name: config.name,
    source: {
      file: config.source.file,
      line: config.source.line,
      column: config.source.column,
      format: config.source.format,
      scope: config.source.scope,
    },
    transport: config.transport,
    target: describeTarget(config),
    state: status.state,
    era: status.era,
    protocolVersion: status.protocolVersion,
    serverInfo: status.serverInfo ? { name: status.serverInfo.name, version: status.serverInfo.version } : null,
    rttMs: status.state === 'up' || status.state === 'suspect' ? round(status.lastRttMs) : null,
    error,
    exitCode: status.lastError?.exitCode ?? null,
    signal: status.lastError?.signal ?? null,
    restarts: status.restarts,
    flapping: status.flapping,
    nonConformant: status.nonConformant,
    ...(config.missingInputs?.length ? { missingInputs: config.missingInputs } : {}),
    ...depthFields(status),
  };
}

export function diagnosticReport(diagnostic: ConfigDiagnostic) {
  return {
    file: diagnostic.file,
    line: diagnostic.line,
    column: diagnostic.column,
    severity: diagnostic.severity,
    message: diagnostic.message,
    ...(diagnostic.serverName ? { server: diagnostic.serverName } : {}),
  };
}

// --- Readable output -------------------------------------------------------------------------------------------

export interface Style {
  readonly color: boolean;
}

const ANSI = { reset: '\x1b[0m', bold: '\x1b[1m', dim: '\x1b[2m', red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m' };

function paint(style: Style, code: keyof typeof ANSI, text: string): string {
  return style.color ? `${ANSI[code]}${text}${ANSI.reset}` : text;
}

const STATE_COLOR: Record<ServerState, keyof typeof ANSI> = {
  up: 'green',
  connecting: 'cyan',
  idle: 'dim',
  down: 'red',
  suspect: 'yellow',
  'auth-required': 'yellow',
  'needs-input': 'yellow',
  'config-error': 'red',
  disabled: 'dim',
  untrusted: 'dim',
};

export function stateLabel(report: Pick<ServerReport, 'state' | 'flapping'>, style: Style): string {
  const label = report.flapping ? `${report.state} (flapping)` : report.state;
  return paint(style, report.flapping && report.state === 'up' ? 'yellow' : STATE_COLOR[report.state], label);
}

/** Lays out rows in columns; widths are measured on the unpainted text so colour codes do not skew them. */
function table(header: readonly string[], rows: readonly (readonly { text: string; painted: string }[])[], style: Style): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].text.length)));
  const line = (cells: readonly string[], raw: readonly string[]) =>
    cells.map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(widths[column] - raw[column].length))).join('  ').trimEnd();
  const out = [paint(style, 'bold', line(header, header))];
  for (const row of rows) out.push(line(row.map((cell) => cell.painted), row.map((cell) => cell.text)));
  return out.join('\n');
}

function plain(text: string) {
  return { text, painted: text };
}

function relativeSource(file: string, line: number, cwd: string): string {
  const relative = path.relative(cwd, file);
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
  return `${shown}:${line}`;
}

export function formatServerTable(reports: readonly ServerReport[], style: Style, cwd: string, withHealth: boolean): string {
  if (reports.length === 0) return 'No MCP servers found.';
  const header = withHealth
    ? ['NAME', 'STATE', 'RTT', 'ERA', 'TOOLS', 'TRANSPORT', 'SOURCE', 'DETAIL']
    : ['NAME', 'TRANSPORT', 'TARGET', 'SOURCE'];
  const rows = reports.map((report) => {
    const source = plain(relativeSource(report.source.file, report.source.line, cwd));
    if (!withHealth) return [plain(report.name), plain(report.transport), plain(report.target), source];
    const state = report.flapping ? `${report.state} (flapping)` : report.state;
    const detail = report.cause && report.nextStep
      ? `${report.cause.summary}. Next: ${report.nextStep}`
      : report.drift
        ? `tools changed: ${report.drift.summary}`
        : report.error
      ? `${report.error.kind}: ${report.error.message}`
      : report.serverInfo
        ? `${report.serverInfo.name}${report.serverInfo.version ? ' ' + report.serverInfo.version : ''}${report.restarts ? ` · ${report.restarts} restarts` : ''}`
        : '';
    return [
      plain(report.name),
      { text: state, painted: stateLabel(report, style) },
      plain(report.rttMs === null ? '-' : `${report.rttMs.toFixed(1)} ms`),
      plain(report.era ?? '-'),
      plain(toolsCell(report)),
      plain(report.transport),
      source,
      plain(detail.replace(/\s+/g, ' ').slice(0, 240)),
    ];
  });
  return table(header, rows, style);
}

export function formatDiagnostics(diagnostics: readonly ConfigDiagnostic[], style: Style, cwd: string): string {
  return diagnostics
    .map((d) => `${paint(style, d.severity === 'error' ? 'red' : 'yellow', d.severity)} ${relativeSource(d.file, d.line, cwd)}:${d.column} ${d.message}`)
    .join('\n');
}

export function summaryLine(reports: readonly ServerReport[], style: Style): string {
  const up = reports.filter((report) => report.state === 'up').length;
  const text = `${up}/${reports.length} up`;
  return paint(style, up === reports.length ? 'green' : 'red', text);
}
