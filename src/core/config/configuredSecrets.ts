// Every value the user configured in a server's `env` or `headers` is a secret until it plainly cannot be one.
// Guessing from the name (`*_TOKEN`) misses `GITHUB_PAT` and `DATABASE_URL`; guessing from the value errs the other
// way, so the exceptions are narrow and written down (README, "Secrets"):
//   - shorter than MIN_SECRET_LENGTH (4) characters: masked nowhere, they would mask ordinary words in every message;
//   - a boolean word: true/false/yes/no/on/off, any case;
//   - a number: an optional sign, at most 10 digits, an optional fraction of at most 6 digits (ports, sizes, timeouts);
//   - a short plain word: one or two runs of at most 12 letters joined by `-`, `_`, `.` or `/`, each run all
//     lower-case, all upper-case or Capitalised (`production`, `DEBUG`, `eu-west`, `application/json`);
//     a run with a digit or an inner capital (`hunter2`, `SuperSecret`) is not plain;
//   - an absolute path that exists on disk, or a list of them joined by `:` or `;` (PATH-like).
// Everything else — tokens, URLs (with or without credentials), JSON, anything with a digit — is masked.

import type { ServerConfig } from '../model';
import { MIN_SECRET_LENGTH, urlCredential } from '../redact';

/** Answers whether an absolute path exists; absent (or failing) means "do not know", and the value stays secret. */
export type PathExists = (path: string) => Promise<boolean>;

const BOOLEAN = /^(true|false|yes|no|on|off)$/i;
const NUMBER = /^[+-]?\d{1,10}(\.\d{1,6})?$/;
const WORD_RUN = '(?:[a-z]{1,12}|[A-Z]{1,12}|[A-Z][a-z]{1,11})';
const PLAIN_WORD = new RegExp(`^${WORD_RUN}(?:[-_./]${WORD_RUN})?$`);
const ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

/** The rule without the file system: true when the value's shape alone shows it is no secret. */
export function plainlyNotSecret(value: string): boolean {
  return value.length < MIN_SECRET_LENGTH || BOOLEAN.test(value) || NUMBER.test(value) || PLAIN_WORD.test(value);
}

async function existingPaths(value: string, pathExists: PathExists | undefined): Promise<boolean> {
  if (!pathExists) return false;
  const whole = [value];
  // `C:\x` holds a colon that is no list separator, so the whole value is tried before any split.
  for (const entries of [whole, value.split(';'), value.split(':')]) {
    const candidates = entries.filter((entry) => entry.length > 0);
    if (candidates.length === 0 || !candidates.every((entry) => ABSOLUTE_PATH.test(entry))) continue;
    const found = await Promise.all(candidates.map((entry) => pathExists(entry).catch(() => false)));
    if (found.every(Boolean)) return true;
  }
  return false;
}

/** True when the value cannot be a secret under the rule above. */
export async function cannotBeSecret(value: string, pathExists?: PathExists): Promise<boolean> {
  return plainlyNotSecret(value) || (await existingPaths(value, pathExists));
}

/**
 * What a configured value can leak as, besides itself: the credential after an auth scheme (`Bearer xyz`), the
 * `user:password` inside Basic credentials and its password, and the password inside a URL (`postgres://u:pw@h`).
 */
function derivedSecrets(value: string): string[] {
  const derived: string[] = [];
  const scheme = /^([A-Za-z][A-Za-z0-9_-]*)\s+(\S.*)$/.exec(value);
  if (scheme) {
    derived.push(scheme[2]);
    if (scheme[1].toLowerCase() === 'basic') {
      const decoded = decodeBase64(scheme[2]);
      if (decoded !== undefined && /^[^:]*:.+$/s.test(decoded)) derived.push(decoded, decoded.slice(decoded.indexOf(':') + 1));
    }
  }
  const credential = urlCredential(value);
  if (credential !== undefined) derived.push(credential);
  return derived;
}

function decodeBase64(text: string): string | undefined {
  try {
    return atob(text);
  } catch {
    return undefined;
  }
}

/** The server with every configured env and header value that can be a secret added to its secretValues. */
export async function withConfiguredSecrets(server: ServerConfig, pathExists?: PathExists): Promise<ServerConfig> {
  const secrets = new Set(server.secretValues ?? []);
  const configured = [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})];
  for (const value of configured) {
    if (await cannotBeSecret(value, pathExists)) continue;
    secrets.add(value);
    for (const derived of derivedSecrets(value)) if (!plainlyNotSecret(derived)) secrets.add(derived);
  }
  return secrets.size > 0 ? { ...server, secretValues: [...secrets] } : server;
}
