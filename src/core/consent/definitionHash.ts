// What a server definition would run or contact, reduced to a hash: consent is given to that, not to a server name.
// Env and header values are left out on purpose: rotating a token is not a new program, and the hash must not be a
// function of secrets. Everything that changes what is started or contacted is in.

import { createHash } from 'node:crypto';
import type { SandboxPolicy, ServerConfig } from '../model';

/** Bumped when the fields below change, so stored hashes of an older shape no longer match. */
export const DEFINITION_HASH_VERSION = 1;

export interface Definition {
  readonly v: number;
  readonly transport: string;
  readonly command: string | null;
  readonly args: readonly string[];
  readonly envNames: readonly string[];
  readonly envFile: string | null;
  readonly cwd: string | null;
  readonly url: string | null;
  readonly headerNames: readonly string[];
  /** Only when sandboxed, so the hashes of every other definition stay as they were: turning it off asks again. */
  readonly sandbox?: SandboxPolicy;
}

export function definitionOf(config: ServerConfig): Definition {
  return {
    v: DEFINITION_HASH_VERSION,
    transport: config.transport,
    command: config.command ?? null,
    args: [...(config.args ?? [])],
    envNames: Object.keys(config.env ?? {}).sort(),
    envFile: config.envFile ?? null,
    cwd: config.cwdFromWindow ? null : config.cwd ?? null,
    url: config.url ?? null,
    // HTTP header names are case-insensitive: "Authorization" and "authorization" are one definition.
    headerNames: [...new Set(Object.keys(config.headers ?? {}).map((name) => name.toLowerCase()))].sort(),
    ...(config.sandbox ? { sandbox: config.sandbox } : {}),
  };
}

/** Hex SHA-256 of the definition's canonical JSON (fixed key order, sorted names). */
export function definitionHash(config: ServerConfig): string {
  return createHash('sha256').update(JSON.stringify(definitionOf(config))).digest('hex');
}
