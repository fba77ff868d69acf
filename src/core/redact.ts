// Secrets never leave the process in clear: env values, headers, URL credentials and every known secret value
// are masked before anything is logged, rendered or copied.

import type { ServerConfig } from './model';

export const MASK = '***';

/** Values shorter than this are too likely to occur by chance in ordinary text to be masked everywhere. */
export const MIN_SECRET_LENGTH = 4;

const SECRET_NAME = /token|key|secret|passw(or)?d|auth|credential|cookie|session|bearer|signature|private/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function redactEnv(env: Readonly<Record<string, string>> | undefined, secretValues: readonly string[] = []): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {})) {
    result[name] = isSecretName(name) || isKnownSecret(value, secretValues) ? MASK : redactText(value, secretValues);
  }
  return result;
}

/** Keeps the auth scheme so a reader still sees which kind of credential is configured: `Bearer ***`. */
export function redactHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  secretValues: readonly string[] = [],
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (isSecretName(name) || isKnownSecret(value, secretValues)) {
      const scheme = /^([A-Za-z][A-Za-z0-9_-]*)\s+\S/.exec(value);
      result[name] = scheme ? `${scheme[1]} ${MASK}` : MASK;
    } else {
      result[name] = redactText(value, secretValues);
    }
  }
  return result;
}

/**
 * Where the userinfo of a URL ends. The last `@` before the path decides, as WHATWG URL parsing does, so a raw `@`
 * inside a password (`https://user:p@ss@host/`) stays part of the password instead of leaking as the "host".
 */
export function splitUserinfo(url: string): { prefix: string; userinfo: string; rest: string } | undefined {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
  if (!scheme) return undefined;
  const afterScheme = url.slice(scheme[0].length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd >= 0 ? afterScheme.slice(0, authorityEnd) : afterScheme;
  const at = authority.lastIndexOf('@');
  if (at < 0) return undefined;
  return { prefix: scheme[0], userinfo: authority.slice(0, at), rest: afterScheme.slice(at + 1) };
}

/** The credential a URL carries in its userinfo: the password, or a lone username (usually a token). */
export function urlCredential(url: string): string | undefined {
  const parts = splitUserinfo(url);
  if (!parts) return undefined;
  const colon = parts.userinfo.indexOf(':');
  const credential = colon >= 0 ? parts.userinfo.slice(colon + 1) : parts.userinfo;
  return credential.length > 0 ? credential : undefined;
}

/** Masks the userinfo password (or a lone username, which is usually a token) and secret-named query values. */
export function redactUrl(url: string): string {
  const fragmentAt = url.indexOf('#');
  const withoutFragment = fragmentAt >= 0 ? url.slice(0, fragmentAt) : url;
  const fragment = fragmentAt >= 0 ? url.slice(fragmentAt) : '';
  const queryAt = withoutFragment.indexOf('?');
  const base = queryAt >= 0 ? withoutFragment.slice(0, queryAt) : withoutFragment;
  const query = queryAt >= 0 ? withoutFragment.slice(queryAt + 1) : undefined;

  const parts = splitUserinfo(base);
  let redactedBase = base;
  if (parts) {
    const colon = parts.userinfo.indexOf(':');
    const userinfo = colon >= 0 ? `${parts.userinfo.slice(0, colon)}:${MASK}` : MASK;
    redactedBase = `${parts.prefix}${userinfo}@${parts.rest}`;
  }
  const redactedQuery = query
    ?.split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      return isSecretName(safeDecode(pair.slice(0, equals))) ? `${pair.slice(0, equals)}=${MASK}` : pair;
    })
    .join('&');
  return redactedBase + (redactedQuery !== undefined ? `?${redactedQuery}` : '') + fragment;
}

/**
 * Every spelling under which a secret can come back in text: as given, percent-encoded (as a URL component, a whole
 * URI, URL userinfo or a form), percent-decoded when it was given encoded, and JSON-escaped.
 */
export function secretSpellings(value: string): string[] {
  const spellings = new Set<string>([value]);
  const add = (make: () => string) => {
    try {
      spellings.add(make());
    } catch {
      // A lone surrogate cannot be encoded; the raw value is still masked.
    }
  };
  add(() => encodeURIComponent(value));
  add(() => encodeURI(value));
  add(() => new URLSearchParams({ v: value }).toString().slice(2));
  add(() => {
    const url = new URL('http://example.invalid/');
    url.password = value;
    return url.password;
  });
  add(() => JSON.stringify(value).slice(1, -1));
  if (/%[0-9A-Fa-f]{2}/.test(value)) add(() => decodeURIComponent(value));
  return [...spellings].filter((spelling) => spelling.length >= MIN_SECRET_LENGTH);
}

/**
 * The one redactor: replaces every known secret, in every spelling, with MASK. Built once per server so the
 * spellings are worked out once, not per log line; `general` runs afterwards (e.g. secrets of other servers).
 */
export function makeRedactor(secretValues: readonly string[] | undefined, general?: (text: string) => string): (text: string) => string {
  // Needles by their first MIN_SECRET_LENGTH characters, longest first within each, so one left-to-right pass masks
  // the longest secret starting at each position: the cost per line does not grow with the number of secrets (a
  // window's redactor holds every server's).
  const byPrefix = new Map<string, string[]>();
  for (const value of secretValues ?? []) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    for (const spelling of secretSpellings(value)) {
      const prefix = spelling.slice(0, MIN_SECRET_LENGTH);
      const list = byPrefix.get(prefix) ?? [];
      if (!list.includes(spelling)) list.push(spelling);
      byPrefix.set(prefix, list);
    }
  }
  for (const list of byPrefix.values()) list.sort((a, b) => b.length - a.length);
  const mask = (text: string): string => {
    if (byPrefix.size === 0) return text;
    let result = '';
    let copiedUpTo = 0;
    let i = 0;
    while (i <= text.length - MIN_SECRET_LENGTH) {
      const hit = byPrefix.get(text.slice(i, i + MIN_SECRET_LENGTH))?.find((needle) => text.startsWith(needle, i));
      if (hit === undefined) {
        i += 1;
        continue;
      }
      result += text.slice(copiedUpTo, i) + MASK;
      i += hit.length;
      copiedUpTo = i;
    }
    return result + text.slice(copiedUpTo);
  };
  return (text: string) => (general ? general(mask(text)) : mask(text));
}

/** Callers pass the same secretValues array (a config's, a window's) for every line; the spellings are built once. */
const redactorsBySecrets = new WeakMap<readonly string[], (text: string) => string>();

/** Replaces every occurrence of a known secret (in any spelling) in free text: logs, stderr, error messages. */
export function redactText(text: string, secretValues: readonly string[]): string {
  let redactor = redactorsBySecrets.get(secretValues);
  if (!redactor) {
    redactor = makeRedactor(secretValues);
    redactorsBySecrets.set(secretValues, redactor);
  }
  return redactor(text);
}

/** One line saying what a server runs or where it lives, safe to show anywhere. */
export function describeTarget(server: Pick<ServerConfig, 'transport' | 'command' | 'args' | 'url' | 'secretValues'>): string {
  const secrets = server.secretValues ?? [];
  if (server.transport !== 'stdio') return redactText(redactUrl(server.url ?? ''), secrets);
  const words = [server.command ?? '', ...redactArgs(server.args ?? [])];
  return redactText(words.map(quoteForDisplay).join(' '), secrets);
}

/** `--token=abc` and `--api-key abc` style arguments carry credentials on the command line. */
function redactArgs(args: readonly string[]): string[] {
  const result: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const flagWithValue = /^(--?[A-Za-z0-9_.-]+)=(.*)$/s.exec(arg);
    if (flagWithValue && isSecretName(flagWithValue[1])) {
      result.push(`${flagWithValue[1]}=${MASK}`);
    } else if (/^--?[A-Za-z0-9_.-]+$/.test(arg) && isSecretName(arg) && i + 1 < args.length && !args[i + 1].startsWith('-')) {
      result.push(arg, MASK);
      i++;
    } else {
      result.push(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(arg) ? redactUrl(arg) : arg);
    }
  }
  return result;
}

function quoteForDisplay(word: string): string {
  return word === '' || /[\s"'\\$`]/.test(word) ? JSON.stringify(word) : word;
}

function isKnownSecret(value: string, secretValues: readonly string[]): boolean {
  return value.length >= MIN_SECRET_LENGTH && secretValues.includes(value);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
