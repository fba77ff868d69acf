// The one line of a failed server's stderr that tells the user what to do. Runtimes end a crash with their own
// trailer (Node's stack and `Node.js v20.20.2`, Python's traceback frames), so the last line is rarely the message:
// this picks the thrown error's message, the exception line of a traceback, or a line naming what is missing, and
// reads from it the environment variable, flag or file the user has to supply.

import { stripControlSequences } from './controlText';

export interface StderrFinding {
  /** The informative line, without colour codes, at most MAX_LINE characters. */
  readonly line: string;
  /** An environment variable the line names (STRIPE_SECRET_KEY in "set the STRIPE_SECRET_KEY environment variable"). */
  readonly envVar?: string;
  /** A command-line flag the line names (--api-key in "pass it as an argument --api-key=$KEY"). */
  readonly flag?: string;
  /** A file the line says is missing. */
  readonly file?: string;
}

const MAX_LINE = 160;

/** Node's `Error: …`, `TypeError: …`, `Error [ERR_MODULE_NOT_FOUND]: …`, `UnhandledPromiseRejection: …`. */
const NODE_ERROR = /^(?:Uncaught\s+)?(?:[A-Z][A-Za-z0-9]*)?(?:Error|Exception|Rejection)(?:\s\[[A-Z0-9_]+\])?:\s*\S/;
const NODE_TRAILER = /^Node\.js v\d+/;
const STACK_FRAME = /^\s+at\s/;
const UNHANDLED_REASON = /The promise rejected with the reason "(.*)"\.?$/;
const PYTHON_TRACEBACK = /^Traceback \(most recent call last\):/;
/** What a line says when it names something the user must supply. */
const MISSING =
  /\b(required|requires|missing|not set|not provided|not found|must be set|must be provided|must provide|please (?:provide|set|pass|specify)|no such file|cannot find|can't find|could not find|undefined|is empty|needs? to be set)\b/i;
/** SCREAMING_SNAKE names with at least one underscore; Node's error codes (ERR_…) are not variables. */
const ENV_NAME = /\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g;
const FLAG = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/;
const MISSING_FILE = /(?:no such file or directory|cannot find module|can't open file)[^'"]*['"]([^'"]+)['"]/i;

export function stderrFinding(stderr: string | undefined): StderrFinding | null {
  const lines = cleanLines(stderr ?? '');
  if (lines.length === 0) return null;
  const picked = pythonException(lines) ?? nodeError(lines) ?? namingLine(lines) ?? lastPlainLine(lines);
  if (picked === undefined) return null;
  return describe(picked, lines);
}

/** Colour codes out; a carriage return inside a line keeps only what was drawn last (progress bars). */
function cleanLines(text: string): string[] {
  return stripControlSequences(text.replace(/\r(?!\n)/g, '\n'))
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .filter((line) => line.trim().length > 0);
}

/** The exception line that ends the last traceback: the first unindented line after `Traceback (…):`. */
function pythonException(lines: readonly string[]): string | undefined {
  let start = -1;
  lines.forEach((line, index) => {
    if (PYTHON_TRACEBACK.test(line)) start = index;
  });
  if (start < 0) return undefined;
  return lines.slice(start + 1).find((line) => !/^\s/.test(line));
}

/** The last error header Node printed above a stack (or its `{ code: … }` details, or its version trailer). */
function nodeError(lines: readonly string[]): string | undefined {
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index];
    if (!NODE_ERROR.test(line)) continue;
    const next = lines[index + 1];
    if (next === undefined || STACK_FRAME.test(next) || NODE_TRAILER.test(next) || /^\s*\{?\s*$/.test(next) || /^\s*\w+:\s/.test(next)) {
      const reason = UNHANDLED_REASON.exec(line);
      return reason ? reason[1] : line;
    }
  }
  return undefined;
}

/** Without a recognised crash: the last line that says something is missing or required. */
function namingLine(lines: readonly string[]): string | undefined {
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index];
    if (isTrailer(line)) continue;
    if (MISSING.test(line)) return line;
  }
  return undefined;
}

function lastPlainLine(lines: readonly string[]): string | undefined {
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    if (!isTrailer(lines[index])) return lines[index];
  }
  return undefined;
}

/** Runtime furniture that never explains anything: version trailers, stack frames, carets, brace lines. */
function isTrailer(line: string): boolean {
  return NODE_TRAILER.test(line) || STACK_FRAME.test(line) || /^\s*[\^~]+\s*$/.test(line) || /^\s*[{}]\s*$/.test(line);
}

function describe(picked: string, lines: readonly string[]): StderrFinding {
  const line = shorten(picked.trim());
  const envVar = envVarIn(picked, lines);
  const flag = MISSING.test(picked) || /argument|option|flag/i.test(picked) ? FLAG.exec(picked)?.[0] : undefined;
  const file = MISSING_FILE.exec(picked)?.[1];
  return {
    line,
    ...(envVar !== undefined ? { envVar } : {}),
    ...(flag !== undefined ? { flag } : {}),
    ...(file !== undefined && looksLikePath(file) ? { file } : {}),
  };
}

function envVarIn(picked: string, lines: readonly string[]): string | undefined {
  // Python: `KeyError: 'OPENAI_API_KEY'` after a frame that read os.environ.
  const keyError = /^KeyError:\s*['"]([A-Z][A-Z0-9_]*)['"]/.exec(picked.trim());
  if (keyError && lines.some((line) => /environ/.test(line))) return keyError[1];
  if (!MISSING.test(picked) && !/environment|env\b|variable/i.test(picked)) return undefined;
  return [...picked.matchAll(ENV_NAME)].map((match) => match[0]).find((name) => !name.startsWith('ERR_'));
}

function looksLikePath(text: string): boolean {
  return /[\\/]/.test(text) || /^\.{1,2}$/.test(text) || /\.[A-Za-z0-9]{1,6}$/.test(text);
}

function shorten(line: string): string {
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}
