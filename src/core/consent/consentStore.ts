// The user's consent decisions: server id -> hash of the definition they allowed. Kept behind a two-method storage
// interface (the extension passes its globalState) so reading a corrupt or older store is testable without an editor.

import type { Logger } from '../logger';
import type { ServerConfig } from '../model';
import {
  changedParts,
  definitionParts,
  hashOfParts,
  legacyDefinitionHash,
  type ConsentKey,
  type DefinitionChange,
  type DefinitionParts,
} from './definitionHash';

export const CONSENT_STORAGE_KEY = 'mcpHealth.consent';
/**
 * Bumped when the record's shape or the hash's meaning changes. Version 1 (names-only SHA-256) is still read: its
 * user-level decisions carry over without asking (see legacy below); its workspace-level ones ask once more.
 */
export const CONSENT_STORE_VERSION = 2;
const LEGACY_VERSION = 1;

/** What the store needs of its backing storage; vscode.Memento satisfies it. */
export interface ConsentStorage {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** One allowed definition: its keyed digest per part (no value in clear), so a change can be named. */
export interface AllowedDefinition {
  readonly hash: string;
  readonly parts: DefinitionParts;
}

export interface ConsentRecord {
  readonly version: typeof CONSENT_STORE_VERSION;
  readonly allowed: Readonly<Record<string, AllowedDefinition>>;
  /** Version-1 hashes not carried over yet (ids of servers not seen since the upgrade). */
  readonly legacy?: Readonly<Record<string, string>>;
}

export type ParsedConsent =
  | { readonly ok: true; readonly allowed: Map<string, AllowedDefinition>; readonly legacy: Map<string, string> }
  | { readonly ok: false; readonly problem: string };

const HEX64 = /^[0-9a-f]{64}$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hashMap(raw: unknown, what: string): Map<string, string> | string {
  if (!isObject(raw)) return `no "${what}" map`;
  const map = new Map<string, string>();
  for (const [id, hash] of Object.entries(raw)) {
    if (typeof hash !== 'string' || !HEX64.test(hash)) return `entry ${JSON.stringify(id)} is not a definition hash`;
    map.set(id, hash);
  }
  return map;
}

/** Undefined (never written) is an empty store; anything else that is not a current (or version-1) record is a problem. */
export function parseConsentRecord(raw: unknown): ParsedConsent {
  if (raw === undefined) {
    return { ok: true, allowed: new Map(), legacy: new Map() };
  }
  if (!isObject(raw)) {
    return { ok: false, problem: `not an object (${raw === null ? 'null' : Array.isArray(raw) ? 'array' : typeof raw})` };
  }
  if (raw.version === LEGACY_VERSION) {
    const legacy = hashMap(raw.allowed, 'allowed');
    return typeof legacy === 'string' ? { ok: false, problem: legacy } : { ok: true, allowed: new Map(), legacy };
  }
  if (raw.version !== CONSENT_STORE_VERSION) {
    return { ok: false, problem: `version ${JSON.stringify(raw.version) ?? 'missing'}, expected ${CONSENT_STORE_VERSION}` };
  }
  if (!isObject(raw.allowed)) {
    return { ok: false, problem: 'no "allowed" map' };
  }
  const allowed = new Map<string, AllowedDefinition>();
  for (const [id, entry] of Object.entries(raw.allowed)) {
    const parts = isObject(entry) ? hashMap(entry.parts, 'parts') : 'not an object';
    if (!isObject(entry) || typeof entry.hash !== 'string' || !HEX64.test(entry.hash) || typeof parts === 'string') {
      return { ok: false, problem: `entry ${JSON.stringify(id)} is not an allowed definition` };
    }
    allowed.set(id, { hash: entry.hash, parts: Object.fromEntries(parts) });
  }
  const legacy = raw.legacy === undefined ? new Map<string, string>() : hashMap(raw.legacy, 'legacy');
  if (typeof legacy === 'string') return { ok: false, problem: legacy };
  return { ok: true, allowed, legacy };
}

/**
 * Reads the storage again whenever it changed underneath (another window allowed a server: VS Code shares globalState
 * between windows), so a decision made in one window holds in all of them without a reload.
 * The key comes from the editor's secret storage; until it is there (`key()` undefined) nothing counts as allowed.
 */
export class ConsentStore {
  private lastRaw: unknown = Symbol('never read');
  private allowed = new Map<string, AllowedDefinition>();
  private legacy = new Map<string, string>();
  private reportedProblem: string | null = null;

  /** Reads nothing yet: every query reads the storage first, and the extension builds this inside activate(). */
  constructor(
    private readonly storage: ConsentStorage,
    private readonly logger: Logger,
    private readonly key: () => ConsentKey | undefined,
  ) {}

  /** Allowed means: this id, with exactly this definition. A changed command, args, env value... asks again. */
  isAllowed(config: ServerConfig): boolean {
    const key = this.key();
    if (key === undefined) return false;
    const entry = this.current().get(config.id);
    if (entry) return entry.hash === hashOfParts(definitionParts(config, key), key);
    return this.legacyAllows(config);
  }

  /** The identity of the current definition (keyed): what a "Not Now" is remembered for. */
  hashOf(config: ServerConfig): string {
    const key = this.key();
    return key === undefined ? '' : hashOfParts(definitionParts(config, key), key);
  }

  /** What changed since this id was allowed; null when it never was (a new server, not a changed one). */
  changes(config: ServerConfig): DefinitionChange[] | null {
    const key = this.key();
    const entry = this.current().get(config.id);
    if (key === undefined || entry === undefined) return null;
    return changedParts(entry.parts, definitionParts(config, key));
  }

  allow(configs: readonly ServerConfig[]): Promise<void> {
    const key = this.key();
    if (key === undefined) return Promise.reject(new Error('consent key not loaded yet'));
    const next = new Map(this.current());
    const legacy = new Map(this.legacy);
    for (const config of configs) {
      const parts = definitionParts(config, key);
      next.set(config.id, { hash: hashOfParts(parts, key), parts });
      legacy.delete(config.id);
    }
    return this.save(next, legacy);
  }

  /**
   * Version-1 decisions for user-level servers, still matching their names-only hash, become current records (with
   * today's values), so they are not asked again and a later change is seen. Workspace-level ones are left to ask.
   */
  async adoptLegacy(configs: readonly ServerConfig[]): Promise<void> {
    this.current();
    const adopt = configs.filter((config) => !this.allowed.has(config.id) && this.legacyAllows(config));
    if (adopt.length === 0) return;
    await this.allow(adopt);
    this.logger.info(`consent carried over from the previous store for ${adopt.map((config) => config.name).join(', ')}`);
  }

  withdraw(ids: readonly string[]): Promise<void> {
    const next = new Map(this.current());
    const legacy = new Map(this.legacy);
    for (const id of ids) {
      next.delete(id);
      legacy.delete(id);
    }
    return this.save(next, legacy);
  }

  reset(): Promise<void> {
    return this.save(new Map(), new Map());
  }

  private legacyAllows(config: ServerConfig): boolean {
    // The old digest is computed only for an id the old store holds: after the upgrade that is none, on every discovery.
    const old = config.source.scope === 'user' ? this.legacy.get(config.id) : undefined;
    return old !== undefined && old === legacyDefinitionHash(config);
  }

  private current(): Map<string, AllowedDefinition> {
    const raw = this.storage.get(CONSENT_STORAGE_KEY);
    if (raw === this.lastRaw) {
      return this.allowed;
    }
    this.lastRaw = raw;
    const parsed = parseConsentRecord(raw);
    if (parsed.ok) {
      this.allowed = parsed.allowed;
      this.legacy = parsed.legacy;
      this.reportedProblem = null;
    } else {
      // Never trust half of a record: ignoring it only means the user is asked again. Said once, not per server.
      if (this.reportedProblem !== parsed.problem) {
        this.logger.warn(`stored consent decisions ignored (${parsed.problem}): every server asks for consent again`);
        this.reportedProblem = parsed.problem;
      }
      this.allowed = new Map();
      this.legacy = new Map();
    }
    return this.allowed;
  }

  private async save(allowed: Map<string, AllowedDefinition>, legacy: Map<string, string>): Promise<void> {
    const record: ConsentRecord = {
      version: CONSENT_STORE_VERSION,
      allowed: Object.fromEntries(allowed),
      ...(legacy.size > 0 ? { legacy: Object.fromEntries(legacy) } : {}),
    };
    this.allowed = allowed;
    this.legacy = legacy;
    this.lastRaw = record;
    await this.storage.update(CONSENT_STORAGE_KEY, record);
  }
}
