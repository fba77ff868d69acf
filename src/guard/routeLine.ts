// What the guard routes a line by (its kind, id, method, whether it failed), read from the raw bytes without building
// the message. JSON.parse of every line was most of the guard's per-message work and garbage in a flood, and for a
// 50 MB message it meant a 50-100 MB string and the whole object tree only to learn the id. The scan validates the
// whole line by the JSON grammar, so it reaches the same verdict as JSON.parse + classify() on every input (the unit
// test compares them on every message shape and on mutated and truncated lines); a line that needs more than this
// (params of initialize, a result the guard keeps) is parsed in full by the caller, as before. A JSON-RPC batch (an
// array of messages, allowed up to protocol 2025-03-26) is routed by each of its messages; the object case, the one
// on the hot path, allocates nothing more for it.

import type { JsonRpcId } from './messages';

export type Route =
  | { readonly kind: 'request'; readonly id: JsonRpcId; readonly method: string }
  | { readonly kind: 'notification'; readonly method: string }
  | { readonly kind: 'response'; readonly id: JsonRpcId | null; readonly failed: boolean }
  | { readonly kind: 'batch'; readonly items: readonly Message[] }
  | { readonly kind: 'other' };

/** What one message of a batch can be (a batch inside a batch is not a message). */
export type Message = Exclude<Route, { kind: 'batch' }>;

const OTHER: Message = { kind: 'other' };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Kinds of a top-level value the guard looks at. */
const enum Value {
  Absent,
  String,
  Number,
  Object,
  Other,
}

/** Top-level members of interest: where their (last, as JSON.parse keeps the last) value lies. */
class Members {
  idType = Value.Absent;
  idStart = 0;
  idEnd = 0;
  idEscaped = false;
  methodType = Value.Absent;
  methodStart = 0;
  methodEnd = 0;
  methodEscaped = false;
  hasResult = false;
  errorType = Value.Absent;
}

/** Set by scanString: whether the string it just scanned holds an escape (and so must be decoded by JSON.parse). */
let escaped = false;

/**
 * Up to this size a line is routed by JSON.parse, native code that reaches the verdict of the scan below in less time
 * than the scan takes to warm up: a byte loop in JavaScript is the guard's hottest code, and its optimisation in the
 * first few hundred messages pages in V8's optimising compiler (about 4 MB of RSS) in a guard that would otherwise
 * idle at the size of a bare relay. Pings, notifications and most requests are this small.
 */
const PARSED_LINE_BYTES = 256;

export function routeLine(raw: Buffer): Route {
  return raw.length <= PARSED_LINE_BYTES ? routeParsed(raw) : routeScanned(raw);
}

/** The route of a line of any size by a scan of its bytes; exported for the test that holds it to JSON.parse's. */
export function routeScanned(raw: Buffer): Route {
  const start = skipWhitespace(raw, 0);
  if (raw[start] === OPEN_BRACKET) return routeBatch(raw, start);
  const members = new Members();
  const end = scanObject(raw, start, members);
  if (end < 0 || skipWhitespace(raw, end) !== raw.length) return OTHER;
  return routeOf(raw, members);
}

function routeParsed(raw: Buffer): Route {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return OTHER;
  }
  if (!Array.isArray(parsed)) return routeOfParsed(parsed);
  return parsed.length === 0 ? OTHER : { kind: 'batch', items: parsed.map(routeOfParsed) };
}

/** The verdict of routeOf() on a parsed message (JSON.parse keeps the last of duplicate keys, as the scan does). */
function routeOfParsed(parsed: unknown): Message {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return OTHER;
  const message = parsed as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  const id = message.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (typeof message.method === 'string') {
    if (id === undefined) return { kind: 'notification', method: message.method };
    return validId ? { kind: 'request', id: id as JsonRpcId, method: message.method } : OTHER;
  }
  if ('result' in message || 'error' in message) {
    const error = message.error;
    return {
      kind: 'response',
      id: validId ? (id as JsonRpcId) : null,
      failed: typeof error === 'object' && error !== null && !Array.isArray(error),
    };
  }
  return OTHER;
}

/** A batch: a non-empty array; each object in it is routed like a line, anything else in it is 'other'. */
function routeBatch(raw: Buffer, pos: number): Route {
  pos = skipWhitespace(raw, pos + 1);
  // An empty batch is not a valid request: the server answers it with one error, which the guard routes as usual.
  if (raw[pos] === CLOSE_BRACKET) return OTHER;
  const items: Message[] = [];
  for (;;) {
    let end: number;
    if (raw[pos] === OPEN_BRACE) {
      const members = new Members();
      end = scanObject(raw, pos, members);
      if (end < 0) return OTHER;
      items.push(routeOf(raw, members));
    } else {
      end = scanValue(raw, pos);
      if (end < 0) return OTHER;
      items.push(OTHER);
    }
    pos = skipWhitespace(raw, end);
    if (raw[pos] === COMMA) {
      pos = skipWhitespace(raw, pos + 1);
      continue;
    }
    if (raw[pos] !== CLOSE_BRACKET) return OTHER;
    return skipWhitespace(raw, pos + 1) === raw.length ? { kind: 'batch', items } : OTHER;
  }
}

/**
 * The line with the value of its top-level "id" (the last one, the one JSON.parse keeps) replaced by `id`, every other
 * byte as it was; for a line routeLine() found to be a request or a response.
 */
export function withTopId(raw: Buffer, id: JsonRpcId): Buffer {
  const members = new Members();
  if (scanObject(raw, skipWhitespace(raw, 0), members) < 0 || members.idType === Value.Absent) return raw;
  return Buffer.concat([raw.subarray(0, members.idStart), Buffer.from(JSON.stringify(id), 'utf8'), raw.subarray(members.idEnd)]);
}

function routeOf(raw: Buffer, members: Members): Message {
  if (members.methodType === Value.String) {
    const method = members.methodEscaped
      ? stringValue(raw, members.methodStart, members.methodEnd, true)
      : knownMethod(raw, members.methodStart + 1, members.methodEnd - 1);
    if (members.idType === Value.Absent) return { kind: 'notification', method };
    const id = idValue(raw, members);
    return id === null ? OTHER : { kind: 'request', id, method };
  }
  if (members.hasResult || members.errorType !== Value.Absent) {
    return { kind: 'response', id: idValue(raw, members), failed: members.errorType === Value.Object };
  }
  return OTHER;
}

/**
 * A session uses a handful of methods over and over: the method of an in-flight request is kept until it is answered,
 * so a flood of 10,000 requests would keep 10,000 copies of "tools/call" alive. The last few method names seen are
 * reused when the bytes match.
 */
const METHOD_CACHE_SIZE = 16;
const methodBytes: Buffer[] = [];
const methodNames: string[] = [];
let methodNext = 0;

function knownMethod(raw: Buffer, start: number, end: number): string {
  const length = end - start;
  for (let slot = 0; slot < methodBytes.length; slot++) {
    const bytes = methodBytes[slot]!;
    if (bytes.length === length && raw.compare(bytes, 0, length, start, end) === 0) return methodNames[slot]!;
  }
  const name = raw.toString('utf8', start, end);
  if (length <= 64) {
    methodBytes[methodNext] = Buffer.from(raw.subarray(start, end));
    methodNames[methodNext] = name;
    methodNext = (methodNext + 1) % METHOD_CACHE_SIZE;
  }
  return name;
}

function idValue(raw: Buffer, members: Members): JsonRpcId | null {
  if (members.idType === Value.String) return stringValue(raw, members.idStart, members.idEnd, members.idEscaped);
  if (members.idType !== Value.Number) return null;
  const { idStart: start, idEnd: end } = members;
  if (end - start <= 15 && raw[start] !== MINUS) {
    // The usual id, a small non-negative integer, without a string for Number() to read.
    let value = 0;
    for (let i = start; i < end; i++) {
      const c = raw[i]!;
      if (c < ZERO || c > NINE) return finiteOrNull(Number(raw.toString('latin1', start, end)));
      value = value * 10 + (c - ZERO);
    }
    return value;
  }
  return finiteOrNull(Number(raw.toString('latin1', start, end)));
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/** The string between start and end (quotes included), decoded as JSON.parse would. */
function stringValue(raw: Buffer, start: number, end: number, hasEscapes: boolean): string {
  return hasEscapes ? (JSON.parse(raw.toString('utf8', start, end)) as string) : raw.toString('utf8', start + 1, end - 1);
}

/** One JSON object from pos (its opening brace) to just past it, or -1; fills in the members of interest. */
function scanObject(raw: Buffer, pos: number, members: Members): number {
  if (pos >= raw.length || raw[pos] !== OPEN_BRACE) return -1;
  pos = skipWhitespace(raw, pos + 1);
  if (raw[pos] === CLOSE_BRACE) return pos + 1;
  for (;;) {
    if (raw[pos] !== QUOTE) return -1;
    const keyStart = pos;
    pos = scanString(raw, pos);
    if (pos < 0) return -1;
    const key = memberOf(raw, keyStart, pos, escaped);
    pos = skipWhitespace(raw, pos);
    if (raw[pos] !== COLON) return -1;
    pos = skipWhitespace(raw, pos + 1);
    const valueStart = pos;
    const first = raw[pos];
    pos = scanValue(raw, pos);
    if (pos < 0) return -1;
    if (key !== Member.None) {
      const type =
        first === QUOTE
          ? Value.String
          : first === OPEN_BRACE
            ? Value.Object
            : first === MINUS || (first! >= ZERO && first! <= NINE)
              ? Value.Number
              : Value.Other;
      if (key === Member.Id) {
        members.idType = type;
        members.idStart = valueStart;
        members.idEnd = pos;
        members.idEscaped = type === Value.String && escaped;
      } else if (key === Member.Method) {
        members.methodType = type;
        members.methodStart = valueStart;
        members.methodEnd = pos;
        members.methodEscaped = type === Value.String && escaped;
      } else if (key === Member.Result) {
        members.hasResult = true;
      } else {
        members.errorType = type;
      }
    }
    pos = skipWhitespace(raw, pos);
    if (raw[pos] === COMMA) {
      pos = skipWhitespace(raw, pos + 1);
      continue;
    }
    if (raw[pos] !== CLOSE_BRACE) return -1;
    return pos + 1;
  }
}

const enum Member {
  None,
  Id,
  Method,
  Result,
  Error,
}

function memberOf(raw: Buffer, start: number, end: number, hasEscapes: boolean): Member {
  if (hasEscapes) {
    // A key spelled with escapes ("\u0069d" is "id") is rare enough to decode properly.
    const key = stringValue(raw, start, end, true);
    return key === 'id'
      ? Member.Id
      : key === 'method'
        ? Member.Method
        : key === 'result'
          ? Member.Result
          : key === 'error'
            ? Member.Error
            : Member.None;
  }
  const size = end - start - 2;
  const c = raw[start + 1];
  if (size === 2) return c === 0x69 && raw[start + 2] === 0x64 ? Member.Id : Member.None;
  if (size === 5) return c === 0x65 && matches(raw, start + 1, 'error') ? Member.Error : Member.None;
  if (size === 6) {
    if (c === 0x6d) return matches(raw, start + 1, 'method') ? Member.Method : Member.None;
    if (c === 0x72) return matches(raw, start + 1, 'result') ? Member.Result : Member.None;
  }
  return Member.None;
}

function matches(raw: Buffer, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) if (raw[at + i] !== word.charCodeAt(i)) return false;
  return true;
}

function skipWhitespace(raw: Buffer, pos: number): number {
  const length = raw.length;
  while (pos < length) {
    const c = raw[pos];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    pos++;
  }
  return pos;
}

/** From an opening quote to just past the closing one, or -1; sets `escaped` when the string holds an escape. */
function scanString(raw: Buffer, pos: number): number {
  const length = raw.length;
  escaped = false;
  pos++;
  while (pos < length) {
    const c = raw[pos]!;
    if (c === QUOTE) return pos + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      escaped = true;
      const e = raw[pos + 1];
      if (e === 0x75) {
        for (let i = 2; i < 6; i++) if (!isHex(raw[pos + i])) return -1;
        pos += 6;
        continue;
      }
      // " \ / b f n r t
      if (e !== QUOTE && e !== BACKSLASH && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) return -1;
      pos += 2;
      continue;
    }
    pos++;
  }
  return -1;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= ZERO && c <= NINE) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));
}

function scanNumber(raw: Buffer, pos: number): number {
  if (raw[pos] === MINUS) pos++;
  const first = raw[pos];
  if (first === ZERO) pos++;
  else if (first !== undefined && first > ZERO && first <= NINE) pos = skipDigits(raw, pos + 1);
  else return -1;
  if (raw[pos] === DOT) {
    const after = skipDigits(raw, pos + 1);
    if (after === pos + 1) return -1;
    pos = after;
  }
  const e = raw[pos];
  if (e === 0x65 || e === 0x45) {
    pos++;
    if (raw[pos] === PLUS || raw[pos] === MINUS) pos++;
    const after = skipDigits(raw, pos);
    if (after === pos) return -1;
    pos = after;
  }
  return pos;
}

function skipDigits(raw: Buffer, pos: number): number {
  while (pos < raw.length && raw[pos]! >= ZERO && raw[pos]! <= NINE) pos++;
  return pos;
}

function scanLiteral(raw: Buffer, pos: number, word: string): number {
  return matches(raw, pos, word) ? pos + word.length : -1;
}

/**
 * One JSON value from pos to just past it, or -1. Nested objects and arrays are walked with an explicit stack (no
 * recursion), so a deeply nested message cannot overflow the call stack.
 */
function scanValue(raw: Buffer, pos: number): number {
  const stack: boolean[] = []; // true: inside an object
  for (;;) {
    // A value starts here.
    const c = raw[pos];
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const inObject = c === OPEN_BRACE;
      pos = skipWhitespace(raw, pos + 1);
      if (raw[pos] === (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) {
        pos++;
      } else {
        stack.push(inObject);
        if (inObject) {
          pos = objectKey(raw, pos);
          if (pos < 0) return -1;
        }
        continue;
      }
    } else if (c === QUOTE) {
      pos = scanString(raw, pos);
    } else if (c === MINUS || (c !== undefined && c >= ZERO && c <= NINE)) {
      pos = scanNumber(raw, pos);
    } else if (c === 0x74) {
      pos = scanLiteral(raw, pos, 'true');
    } else if (c === 0x66) {
      pos = scanLiteral(raw, pos, 'false');
    } else if (c === 0x6e) {
      pos = scanLiteral(raw, pos, 'null');
    } else {
      return -1;
    }
    if (pos < 0) return -1;
    // A value ended: close containers until one continues with a comma, or the outermost value is done.
    for (;;) {
      if (stack.length === 0) return pos;
      const inObject = stack[stack.length - 1]!;
      pos = skipWhitespace(raw, pos);
      const next = raw[pos];
      if (next === COMMA) {
        pos = skipWhitespace(raw, pos + 1);
        if (inObject) {
          pos = objectKey(raw, pos);
          if (pos < 0) return -1;
        }
        break;
      }
      if (next !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) return -1;
      stack.pop();
      pos++;
    }
  }
}

/** `"key" :` inside an object, to the start of its value, or -1. */
function objectKey(raw: Buffer, pos: number): number {
  if (raw[pos] !== QUOTE) return -1;
  pos = scanString(raw, pos);
  if (pos < 0) return -1;
  pos = skipWhitespace(raw, pos);
  if (raw[pos] !== COLON) return -1;
  return skipWhitespace(raw, pos + 1);
}
