// Turns monitor snapshots into the CLI's JSON documents and readable tables. Pure: no I/O.

import * as path from 'node:path';
import type { GuardedFigures } from '../core/guardReport';
import { stripControlSequences } from '../core/controlText';
import type { ConfigDiagnostic, ServerState, ServerStatus } from '../core/model';
import { describeTarget } from '../core/redact';
import { stderrFinding } from '../core/stderrCause';
import { failureCauseOf, serverView, type Decoration } from '../present/serverView';
import { healthOf, isSlow, type Health } from '../present/states';
import { slowCount, summarize } from '../present/summary';
import { depthFields, toolsCell, type DepthFields } from './depthReport';
import { ANSI } from './output';
import { terminalSafe } from './terminalText';

export interface ServerReport extends DepthFields {
  readonly id: string;
  readonly name: string;
  readonly source: {
    readonly file: string;
    readonly line: number;
    readonly column: number;
    readonly format: string;
    readonly scope: string;
  };
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
  /** The last of a failed stdio server's stderr (redacted by the monitor): usually the reason it failed. */
  readonly stderrTail: string | null;
  readonly missingInputs?: readonly string[];
  /** Entries run through `mcp-health guard`: not started here; the running guard's figures (running false: none). */
  readonly guarded?: GuardedFigures;
  /** VS Code's "sandboxEnabled": MCP Health runs it only inside that sandbox. */
  readonly sandboxed?: true;
  /** What the views say on top of the state (src/present/serverView.ts), as ids: `guarded`, `sandboxed`, `starting`, `gave-up`. */
  readonly decorations?: readonly Decoration[];
}

/** Enough of a failed server's stderr for its last messages, short enough to read in a JSON document. */
export const STDERR_TAIL_CHARS = 2_048;
/** Under a table row, two lines (the informative one and the last): the full tail is in --json. */
const STDERR_TABLE_LINES = 2;
/** The DETAIL column and the stderr lines are cut here; names and targets are shown whole. */
const CELL_CHARS = 160;

function round(ms: number | null): number | null {
  return ms === null ? null : Math.round(ms * 100) / 100;
}

/** What a guarded row's DETAIL says: the guard's own figures (the entry is never started here). */
function guardedDetail(guarded: GuardedFigures): string {
  return guarded.running
    ? `guarded: upstream pid ${guarded.upstreamPid ?? '-'}, ${guarded.restarts} restarts, ${guarded.requests} requests, ${guarded.errors} errors`
    : 'guarded: guard not running';
}

/** Status text comes from the monitor already redacted: it is the boundary where server text leaves the core. */
export function serverReport(status: ServerStatus): ServerReport {
  const { config } = status;
  // The same why and next step as the editor's views (held to their English by causeText.test.ts), in the core's
  // untranslated words: --json is for scripts, like the raw state id beside it.
  const view = serverView(status);
  const cause = failureCauseOf(status);
  const error = status.lastError && status.state !== 'up' ? { kind: status.lastError.kind, message: status.lastError.message } : null;
  const failed = status.state !== 'up' && status.state !== 'suspect' && error !== null;
  const tail = config.transport === 'stdio' && failed ? status.stderrTail.slice(-STDERR_TAIL_CHARS) : '';
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
    stderrTail: tail.trim().length > 0 ? tail : null,
    ...(config.missingInputs?.length ? { missingInputs: config.missingInputs } : {}),
    ...depthFields(status),
    cause: cause ? { id: cause.id, summary: cause.summary } : null,
    nextStep: cause?.nextStep ?? null,
    ...(status.guarded ? { guarded: status.guarded } : {}),
    ...(config.sandbox ? { sandboxed: true as const } : {}),
    ...(view.decorations.length ? { decorations: view.decorations } : {}),
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

function paint(style: Style, code: keyof typeof ANSI, text: string): string {
  return style.color ? `${ANSI[code]}${text}${ANSI.reset}` : text;
}

/** The terminal colour of each health, the same judgement the editor's icons and status bar colour by. */
const HEALTH_COLOR: Record<Health, keyof typeof ANSI> = {
  ok: 'green',
  pending: 'cyan',
  warning: 'yellow',
  error: 'red',
  inactive: 'dim',
};

/** The raw state name (stable for scripts that read the table), coloured by its health. */
export function stateLabel(report: Pick<ServerReport, 'state' | 'flapping'> & { readonly slow?: boolean }, style: Style): string {
  const label = report.flapping ? `${report.state} (flapping)` : isSlow(report) ? `${report.state} (slow)` : report.state;
  // A lazy server nobody has asked for yet is pending for the editor, but in a terminal nothing is under way: dim.
  return paint(style, report.state === 'idle' ? 'dim' : HEALTH_COLOR[healthOf(report)], label);
}

type Cell = { text: string; painted: string };
/** A row and the lines printed under it (a failed server's last stderr lines). */
type Row = { cells: readonly Cell[]; below?: readonly string[] };

/** Lays out rows in columns; widths are measured on the unpainted text so colour codes do not skew them. */
function table(header: readonly string[], rows: readonly Row[], style: Style): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row.cells[column].text.length)));
  const line = (cells: readonly string[], raw: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(widths[column] - raw[column].length)))
      .join('  ')
      .trimEnd();
  const out = [paint(style, 'bold', line(header, header))];
  for (const row of rows) {
    out.push(
      line(
        row.cells.map((cell) => cell.painted),
        row.cells.map((cell) => cell.text),
      ),
    );
    for (const below of row.below ?? []) out.push(paint(style, 'dim', `    ${below}`));
  }
  return out.join('\n');
}

/** Every cell is one line of terminal-safe text: config files and servers both supply what ends up here. */
function plain(text: string): Cell {
  const safe = oneLine(text);
  return { text: safe, painted: safe };
}

function oneLine(text: string): string {
  return terminalSafe(text.replace(/\s+/g, ' '));
}

/**
 * The line of stderr that says why (src/core/stderrCause.ts: a Node crash ends with its stack and `Node.js v20`, not
 * with its message), then the last line; the last two lines when the informative one is among them.
 */
function stderrLines(tail: string | null): string[] {
  if (tail === null) return [];
  const lines = tail
    .split(/\r?\n/)
    .map((line) => oneLine(line).slice(0, CELL_CHARS))
    .filter((line) => line.trim().length > 0);
  const last = lines.slice(-STDERR_TABLE_LINES);
  const informative = stderrFinding(tail)?.line;
  const shownAlready =
    informative === undefined || last.some((line) => oneLine(stripControlSequences(line)).trim().startsWith(informative.replace(/…$/, '')));
  const shown = shownAlready ? last : [oneLine(informative).slice(0, CELL_CHARS), ...lines.slice(-1)];
  return shown.map((line) => `stderr: ${line}`);
}

function relativeSource(file: string, line: number, cwd: string): string {
  const relative = path.relative(cwd, file);
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
  return `${shown}:${line}`;
}

/** ` · certificate expires in 40 days (…)`, with `warning: ` in front under the warning threshold. */
function certificateNote(report: ServerReport): string {
  const certificate = report.certificate;
  if (!certificate) return '';
  return ` · ${certificate.warning ? 'warning: ' : ''}${certificate.text}`;
}

export function formatServerTable(reports: readonly ServerReport[], style: Style, cwd: string, withHealth: boolean): string {
  if (reports.length === 0) return 'No MCP servers found.';
  const header = withHealth
    ? ['NAME', 'STATE', 'RTT', 'ERA', 'TOOLS', 'TRANSPORT', 'SOURCE', 'DETAIL']
    : ['NAME', 'TRANSPORT', 'TARGET', 'SOURCE'];
  const rows = reports.map((report) => {
    const source = plain(relativeSource(report.source.file, report.source.line, cwd));
    if (!withHealth) return { cells: [plain(report.name), plain(report.transport), plain(report.target), source] };
    const flagged = report.flapping ? `${report.state} (flapping)` : isSlow(report) ? `${report.state} (slow)` : report.state;
    const state = report.decorations?.includes('sandboxed') ? `${flagged} (sandboxed)` : flagged;
    const detail = report.guarded
      ? guardedDetail(report.guarded)
      : report.cause && report.nextStep
        ? `${report.cause.summary}. Next: ${report.nextStep}`
        : report.drift
          ? `tools changed: ${report.drift.summary}`
          : report.error
            ? `${report.error.kind}: ${report.error.message}`
            : report.serverInfo
              ? `${report.serverInfo.name}${report.serverInfo.version ? ' ' + report.serverInfo.version : ''}${report.restarts ? ` · ${report.restarts} restarts` : ''}${certificateNote(report)}`
              : certificateNote(report).replace(/^ · /, '');
    const cells = [
      plain(report.name),
      { text: state, painted: stateLabel(report, style) + state.slice(flagged.length) },
      plain(report.rttMs === null ? '-' : `${report.rttMs.toFixed(1)} ms`),
      plain(report.era ?? '-'),
      plain(toolsCell(report)),
      plain(report.transport),
      source,
      plain(oneLine(detail).slice(0, CELL_CHARS)),
    ];
    return { cells, below: stderrLines(report.stderrTail) };
  });
  return table(header, rows, style);
}

export function formatDiagnostics(diagnostics: readonly ConfigDiagnostic[], style: Style, cwd: string): string {
  return diagnostics
    .map(
      (d) =>
        `${paint(style, d.severity === 'error' ? 'red' : 'yellow', d.severity)} ${terminalSafe(`${relativeSource(d.file, d.line, cwd)}:${d.column} ${d.message}`)}`,
    )
    .join('\n');
}

/** The same count as the editor's status bar: healthy (up, not flapping) out of monitored servers. */
export function summaryLine(reports: readonly ServerReport[], style: Style, interrupted = false): string {
  const summary = summarize(reports.map((report) => ({ ...report, lastError: report.error })));
  if (interrupted) return paint(style, 'yellow', `interrupted: partial result, ${summary.healthy}/${summary.monitored} healthy so far`);
  const text = `${summary.healthy}/${summary.monitored} healthy${summary.slow > 0 ? `, ${slowCount(summary.slow)}` : ''}`;
  return paint(style, summary.worst === 'error' || summary.worst === 'warning' ? HEALTH_COLOR[summary.worst] : 'green', text);
}
