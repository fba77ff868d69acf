// What a server definition would run or contact, as one keyed digest per part: consent is given to that, not to a
// server name. Parts are digested with HMAC-SHA-256 under a random per-installation key the editor keeps in its
// secret storage, so what is stored says nothing about a value (a plain hash of a short secret can be guessed
// offline), yet a changed value is still seen, and named: "NODE_OPTIONS changed".
// What is in:
// - transport, command, args, cwd (unless the window gave it), URL, envFile path, env names, header names, and the
//   sandbox policy of a server with `sandboxEnabled`;
// - env VALUES: they choose code (`NODE_OPTIONS=--require ./x.js`, `PATH`, `PYTHONPATH`, `LD_PRELOAD`,
//   `npm_config_registry`...). For a user-level server a value whose NAME is secret (token, key, password...) is left
//   out: your own file is written by you, a secret-named variable is a credential handed to the server you chose,
//   not a way to pick what runs, and rotating it should not ask again. Workspace files (anyone with a commit can
//   change them) count every value.
// What is out: header values (credentials sent to the URL you allowed; they run nothing), `${input:}` values (the
// definition keeps `${input:id}` as written: the secret the user types after allowing must not ask again).

import { createHash, createHmac } from 'node:crypto';
import type { ServerConfig } from '../model';
import { isSecretName } from '../redact';

/** Bumped when the parts below change meaning, so stored digests of an older shape no longer match. */
export const DEFINITION_HASH_VERSION = 2;

/** The per-installation key (32 random bytes); the core never stores it. */
export type ConsentKey = Uint8Array;

/** Part name -> hex HMAC. Names: transport, command, args, cwd, url, envFile, `env:NAME`, `header:name`. */
export type DefinitionParts = Readonly<Record<string, string>>;

export interface DefinitionChange {
  readonly kind: 'changed' | 'added' | 'removed';
  /** `command`, `args`, `cwd`, `url`, `envFile`, `transport`, `sandbox`, `env` or `header`. */
  readonly part: string;
  /** The variable or header name for `env` / `header`. */
  readonly name?: string;
}

/** The values consent is given to: `${input:id}` kept as written where the file used one. */
function consentForm(config: ServerConfig) {
  const written = config.asWritten;
  return {
    command: written?.command ?? config.command,
    args: written?.args ?? config.args,
    cwd: config.cwdFromWindow ? undefined : (written?.cwd ?? config.cwd),
    url: written?.url ?? config.url,
    envFile: written?.envFile ?? config.envFile,
    env: { ...config.env, ...written?.env },
  };
}

export function definitionParts(config: ServerConfig, key: ConsentKey): DefinitionParts {
  const form = consentForm(config);
  const digest = (part: string, value: unknown) =>
    createHmac('sha256', key)
      .update(JSON.stringify([DEFINITION_HASH_VERSION, part, value]))
      .digest('hex');
  const parts: Record<string, string> = {
    transport: digest('transport', config.transport),
    command: digest('command', form.command ?? null),
    args: digest('args', form.args ?? []),
    cwd: digest('cwd', form.cwd ?? null),
    url: digest('url', form.url ?? null),
    envFile: digest('envFile', form.envFile ?? null),
  };
  // Only when sandboxed, so every other definition keeps its parts: turning the sandbox off, or changing its policy,
  // asks again.
  if (config.sandbox) parts.sandbox = digest('sandbox', config.sandbox);
  const userLevel = config.source.scope === 'user';
  for (const [name, value] of Object.entries(form.env)) {
    parts[`env:${name}`] = digest(`env:${name}`, userLevel && isSecretName(name) ? null : value);
  }
  // HTTP header names are case-insensitive: "Authorization" and "authorization" are one definition.
  for (const name of new Set(Object.keys(config.headers ?? {}).map((header) => header.toLowerCase()))) {
    parts[`header:${name}`] = digest(`header:${name}`, null);
  }
  return parts;
}

/** One hex HMAC over every part (sorted): the definition's identity, e.g. for "asked about this already". */
export function definitionHash(config: ServerConfig, key: ConsentKey): string {
  return hashOfParts(definitionParts(config, key), key);
}

export function hashOfParts(parts: DefinitionParts, key: ConsentKey): string {
  const sorted = Object.keys(parts)
    .sort()
    .map((name) => [name, parts[name]]);
  return createHmac('sha256', key).update(JSON.stringify(sorted)).digest('hex');
}

/** What differs between the definition allowed and the current one, in a fixed order (main parts, then env, headers). */
export function changedParts(allowed: DefinitionParts, current: DefinitionParts): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  const names = [...new Set([...Object.keys(allowed), ...Object.keys(current)])];
  const rank = (name: string) => (name.startsWith('env:') ? 1 : name.startsWith('header:') ? 2 : 0);
  names.sort((a, b) => rank(a) - rank(b) || (rank(a) === 0 ? MAIN_PARTS.indexOf(a) - MAIN_PARTS.indexOf(b) : a.localeCompare(b)));
  for (const name of names) {
    const kind = !(name in allowed) ? 'added' : !(name in current) ? 'removed' : allowed[name] !== current[name] ? 'changed' : undefined;
    if (kind === undefined) continue;
    const colon = name.indexOf(':');
    changes.push(colon < 0 ? { kind, part: name } : { kind, part: name.slice(0, colon), name: name.slice(colon + 1) });
  }
  return changes;
}

const MAIN_PARTS = ['transport', 'command', 'args', 'cwd', 'url', 'envFile', 'sandbox'];

/**
 * The hash consent records of version 1 stored (SHA-256 of names only, no values): read once, to carry a user-level
 * decision over without asking again. Never written any more.
 */
export function legacyDefinitionHash(config: ServerConfig): string {
  return createHash('sha256')
    .update(
      JSON.stringify({
        v: 1,
        transport: config.transport,
        command: config.command ?? null,
        args: [...(config.args ?? [])],
        envNames: Object.keys(config.env ?? {}).sort(),
        envFile: config.envFile ?? null,
        cwd: config.cwdFromWindow ? null : (config.cwd ?? null),
        url: config.url ?? null,
        headerNames: [...new Set(Object.keys(config.headers ?? {}).map((name) => name.toLowerCase()))].sort(),
      }),
    )
    .digest('hex');
}
