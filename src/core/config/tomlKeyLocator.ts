// smol-toml yields plain values without positions, so this light scanner finds where each key path is written:
// table headers, dotted keys and keys inside inline tables. Good enough to point a diagnostic at the right line.

import type { Position } from './lineIndex';

export interface KeyLocations {
  /** Where each key path is written (a table header, or the key of `key = value`). */
  readonly keys: ReadonlyMap<string, Position>;
  /** Where the value of `key = value` starts. */
  readonly values: ReadonlyMap<string, Position>;
}

export function pathKey(path: readonly string[]): string {
  return JSON.stringify(path);
}

type Frame = { kind: 'inline'; path: string[] | null } | { kind: 'array' };

export function locateTomlKeys(text: string): KeyLocations {
  const found = new Map<string, Position>();
  const values = new Map<string, Position>();
  const record = (path: string[] | null, pos: Position, map = found): void => {
    if (path && !map.has(pathKey(path))) map.set(pathKey(path), pos);
  };
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let tablePath: string[] = [];
  let atLineStart = true;
  let expectingInlineKey = false;
  let pendingPath: string[] | null = null;
  const stack: Frame[] = [];
  const posAt = (offset: number): Position => ({ line, column: offset - lineStart + 1 });

  while (i < text.length) {
    const ch = text[i];
    if (ch === '\n') {
      i++;
      line++;
      lineStart = i;
      if (stack.length === 0) atLineStart = true;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (stack.length === 0 && atLineStart && ch === '[') {
      const headerPos = posAt(i);
      const isArrayTable = text[i + 1] === '[';
      const parsed = readDottedKey(text, i + (isArrayTable ? 2 : 1));
      if (parsed) {
        tablePath = parsed.keys;
        record(tablePath, headerPos);
        i = parsed.end;
      } else {
        i++;
      }
      while (i < text.length && text[i] !== '\n' && text[i] !== '#') i++;
      atLineStart = false;
      continue;
    }
    if ((stack.length === 0 && atLineStart) || (top?.kind === 'inline' && expectingInlineKey)) {
      const parsed = readDottedKey(text, i);
      if (parsed && text[parsed.end] === '=') {
        const base = stack.length === 0 ? tablePath : top.kind === 'inline' ? top.path : null;
        pendingPath = base ? [...base, ...parsed.keys] : null;
        record(pendingPath, posAt(i));
        i = parsed.end + 1;
        while (text[i] === ' ' || text[i] === '\t') i++;
        record(pendingPath, posAt(i), values);
        atLineStart = false;
        expectingInlineKey = false;
        continue;
      }
      atLineStart = false;
      expectingInlineKey = false;
    }
    if (ch === '"' || ch === "'") {
      const end = skipString(text, i);
      for (let k = i; k < end; k++) {
        if (text[k] === '\n') {
          line++;
          lineStart = k + 1;
        }
      }
      i = end;
      continue;
    }
    if (ch === '{') {
      stack.push({ kind: 'inline', path: top?.kind === 'array' ? null : pendingPath });
      expectingInlineKey = true;
    } else if (ch === '[') {
      stack.push({ kind: 'array' });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',' && top?.kind === 'inline') {
      expectingInlineKey = true;
    }
    i++;
  }
  return { keys: found, values };
}

/** Reads `a.b."c d"` followed by optional spaces; returns the keys and the offset after the spaces. */
function readDottedKey(text: string, start: number): { keys: string[]; end: number } | undefined {
  const keys: string[] = [];
  let i = start;
  for (;;) {
    while (text[i] === ' ' || text[i] === '\t') i++;
    const ch = text[i];
    if (ch === '"' || ch === "'") {
      const end = skipString(text, i);
      const raw = text.slice(i + 1, end - 1);
      keys.push(ch === '"' ? unescapeBasic(raw) : raw);
      i = end;
    } else {
      const match = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
      if (!match) return undefined;
      keys.push(match[0]);
      i += match[0].length;
    }
    while (text[i] === ' ' || text[i] === '\t') i++;
    if (text[i] !== '.') break;
    i++;
  }
  if (text[i] === ']') {
    i++;
    if (text[i] === ']') i++;
  }
  return { keys, end: i };
}

function skipString(text: string, start: number): number {
  const quote = text[start];
  const triple = text.startsWith(quote.repeat(3), start);
  let i = start + (triple ? 3 : 1);
  while (i < text.length) {
    if (quote === '"' && text[i] === '\\') {
      i += 2;
      continue;
    }
    if (triple) {
      if (text.startsWith(quote.repeat(3), i)) {
        i += 3;
        while (text[i] === quote) i++;
        return i;
      }
    } else if (text[i] === quote || text[i] === '\n') {
      return text[i] === quote ? i + 1 : i;
    }
    i++;
  }
  return i;
}

function unescapeBasic(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
