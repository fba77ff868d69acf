// Secrets never leave the process in clear: env values, headers, URL credentials and every known secret value
// are masked before anything is logged, rendered or copied.

import type { ServerConfig } from './model';

export const MASK = '***';

/** Values shorter than this are too likely to occur by chance in ordinary text to be masked everywhere. */
const MIN_SECRET_LENGTH = 4;

const SECRET_NAME = /token|key|secret|passw(or)?d|auth|credential|cookie|session|bearer|signature|private/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function redactEnv(
  env: Readonly<Record<string, string>> | undefined,
  secretValues: readonly string[] = [],
): Record<string, string> {
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

/** Masks the userinfo password (or a lone username, which is usually a token) and secret-named query values. */
export function redactUrl(url: string): string {
  const fragmentAt = url.indexOf('#');
  const withoutFragment = fragmentAt >= 0 ? url.slice(0, fragmentAt) : url;
  const fragment = fragmentAt >= 0 ? url.slice(fragmentAt) : '';
  const queryAt = withoutFragment.indexOf('?');
  const base = queryAt >= 0 ? withoutFragment.slice(0, queryAt) : withoutFragment;
  const query = queryAt >= 0 ? withoutFragment.slice(queryAt + 1) : undefined;

  const redactedBase = base.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/@]*)@/, (_match, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon >= 0 ? `${scheme}${userinfo.slice(0, colon)}:${MASK}@` : `${scheme}${MASK}@`;
  });
  const redactedQuery = query?.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    if (equals < 0) return pair;
    return isSecretName(safeDecode(pair.slice(0, equals))) ? `${pair.slice(0, equals)}=${MASK}` : pair;
  }).join('&');
  return redactedBase + (redactedQuery !== undefined ? `?${redactedQuery}` : '') + fragment;
}

/** Replaces every occurrence of a known secret (and its URL-encoded form) in free text: logs, stderr, error messages. */
export function redactText(text: string, secretValues: readonly string[]): string {
  const needles = new Set<string>();
  for (const value of secretValues) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    needles.add(value);
    const encoded = encodeURIComponent(value);
    if (encoded !== value) needles.add(encoded);
  }
  let result = text;
  // Longest first, so a secret that contains another is masked whole.
  for (const needle of [...needles].sort((a, b) => b.length - a.length)) {
    result = result.split(needle).join(MASK);
  }
  return result;
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
