// Everything the CLI prints, on stdout and stderr, goes through this file (lint-enforced: no other file under src/cli*
// writes to process.stdout/stderr or console). Server names, tool names, guard errors and config text all end up in
// what the CLI prints, so the filter is here, once, and the next thing printed cannot forget it:
// - control sequences are removed and other control characters shown as U+FFFD (the CLI's own colours excepted);
// - bidirectional overrides and isolates, which reorder what a reader sees, likewise;
// - no line starts with `::` (a GitHub Actions workflow command: `::warning ...`, `::stop-commands::`, `::add-mask::`)
//   and none holds `##[` (the older command form), except the annotations the CLI builds itself with escaped
//   properties (`GithubAnnotation`).

import { stripControlSequences } from '../core/controlText';

export interface CliOutput {
  /** Lines for stdout (a trailing newline is added). */
  out(text: string | GithubAnnotation): void;
  /** Lines for stderr (a trailing newline is added). */
  err(text: string): void;
}

/** The CLI's palette: the only escape sequences that reach a terminal, and only when colour is on (format.ts). */
export const ANSI = {
  reset: '\x1b[0m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  yellow: '\x1b[33m',
  cyan: '\x1b[36m',
} as const;

const PALETTE = new RegExp(
  `(${Object.values(ANSI)
    .map((code) => code.replace('[', '\\['))
    .join('|')})`,
);
/** Bidi embeddings, overrides and isolates, and the Arabic letter mark. */
const BIDI = /[\u061c\u202a-\u202e\u2066-\u2069]/g;
/** A workflow command at a line's start (the runner trims leading white space), after any of the CLI's colours. */
const WORKFLOW_COMMAND = new RegExp(`^((?:\\s|${PALETTE.source})*):(?=:)`);
/** Shown the same, but no longer `::` or `##[` to the runner. */
const ZERO_WIDTH_SPACE = '\u200b';

/** One line made harmless: see the top of this file. */
function safeLine(line: string): string {
  return line.replace(WORKFLOW_COMMAND, `$1:${ZERO_WIDTH_SPACE}`).replace(/##\[/g, `#${ZERO_WIDTH_SPACE}#[`);
}

function withoutControls(text: string): string {
  return stripControlSequences(text).replace(BIDI, '\uFFFD');
}

/** Text from anywhere, made printable: the CLI's own colours are kept, every other control sequence goes. */
export function printable(text: string): string {
  const parts = text.split(PALETTE);
  // split() with a capturing group puts the palette codes at odd indexes.
  const clean = parts.map((part, index) => (index % 2 === 1 ? part : withoutControls(part))).join('');
  return clean.split('\n').map(safeLine).join('\n');
}

/**
 * JSON for the CLI's --json output. JSON.stringify escapes C0 but leaves DEL, C1 (U+009B is a CSI to many terminals),
 * bidi controls and U+2028/9 raw; here they are \u escapes, so a terminal shows them harmlessly and the values parse
 * back identical. `##[` inside a string becomes `#\u0023[` for the same reason.
 */
export function cliJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent)
    .replace(
      /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/##\[/g, '#\\u0023[');
}

/** The data part of a workflow command: %, CR and LF are escaped. */
function commandData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value: additionally : and , which separate properties. */
function commandProperty(text: string): string {
  return commandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * A GitHub Actions annotation the CLI itself builds (`check --format github`): the one kind of line allowed to start
 * with `::`. Every property and the message are filtered and escaped here, so server text cannot end a property or
 * start a second command.
 */
export class GithubAnnotation {
  readonly line: string;

  constructor(level: 'error' | 'warning', properties: Readonly<Record<string, string | number>>, message: string) {
    const props = Object.entries(properties).map(([key, value]) => `${key}=${commandProperty(withoutControls(String(value)))}`);
    this.line = `::${level} ${props.join(',')}::${commandData(withoutControls(message))}`;
  }
}

interface Streams {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The output of this process; tests pass their own streams. */
export function createCliOutput(streams: Streams = processStreams): CliOutput {
  return {
    out: (text) => streams.stdout((text instanceof GithubAnnotation ? text.line : printable(text)) + '\n'),
    err: (text) => streams.stderr(printable(text) + '\n'),
  };
}

const processStreams: Streams = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * The upstream server's own stderr, passed through by the guard as it is: the guard is transparent, and without it the
 * client would have read the same bytes from the server directly. Not the CLI's words, so not filtered.
 */
export function relayServerStderr(chunk: string | Buffer): void {
  process.stderr.write(chunk);
}
