// The user's consent decisions: server id -> hash of the definition they allowed. Kept behind a two-method storage
// interface (the extension passes its globalState) so reading a corrupt or older store is testable without an editor.

import type { Logger } from '../logger';
import type { ServerConfig } from '../model';
import { definitionHash } from './definitionHash';

export const CONSENT_STORAGE_KEY = 'mcpHealth.consent';
/** Bumped when the record's shape or the hash's meaning changes: an older record is ignored and everything asks again. */
export const CONSENT_STORE_VERSION = 1;

/** What the store needs of its backing storage; vscode.Memento satisfies it. */
export interface ConsentStorage {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

export interface ConsentRecord {
  readonly version: typeof CONSENT_STORE_VERSION;
  readonly allowed: Readonly<Record<string, string>>;
}

export type ParsedConsent = { readonly ok: true; readonly allowed: Map<string, string> } | { readonly ok: false; readonly problem: string };

/** Undefined (never written) is an empty store; anything else that is not a current record is a problem to report. */
export function parseConsentRecord(raw: unknown): ParsedConsent {
  if (raw === undefined) {
    return { ok: true, allowed: new Map() };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: `not an object (${raw === null ? 'null' : Array.isArray(raw) ? 'array' : typeof raw})` };
  }
  const record = raw as { version?: unknown; allowed?: unknown };
  if (record.version !== CONSENT_STORE_VERSION) {
    return { ok: false, problem: `version ${JSON.stringify(record.version) ?? 'missing'}, expected ${CONSENT_STORE_VERSION}` };
  }
  if (typeof record.allowed !== 'object' || record.allowed === null || Array.isArray(record.allowed)) {
    return { ok: false, problem: 'no "allowed" map' };
  }
  const allowed = new Map<string, string>();
  for (const [id, hash] of Object.entries(record.allowed as Record<string, unknown>)) {
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
      return { ok: false, problem: `entry ${JSON.stringify(id)} is not a definition hash` };
    }
    allowed.set(id, hash);
  }
  return { ok: true, allowed };
}

/**
 * Reads the storage again whenever it changed underneath (another window allowed a server: VS Code shares globalState
 * between windows), so a decision made in one window holds in all of them without a reload.
 */
export class ConsentStore {
  private lastRaw: unknown = Symbol('never read');
  private allowed = new Map<string, string>();
  private reportedProblem: string | null = null;

  constructor(private readonly storage: ConsentStorage, private readonly logger: Logger) {
    this.current();
  }

  /** Allowed means: this id, with exactly this definition. A changed command, args, URL... asks again. */
  isAllowed(config: ServerConfig): boolean {
    return this.current().get(config.id) === definitionHash(config);
  }

  allow(configs: readonly ServerConfig[]): Promise<void> {
    const next = new Map(this.current());
    for (const config of configs) {
      next.set(config.id, definitionHash(config));
    }
    return this.save(next);
  }

  withdraw(ids: readonly string[]): Promise<void> {
    const next = new Map(this.current());
    for (const id of ids) {
      next.delete(id);
    }
    return this.save(next);
  }

  reset(): Promise<void> {
    return this.save(new Map());
  }

  private current(): Map<string, string> {
    const raw = this.storage.get(CONSENT_STORAGE_KEY);
    if (raw === this.lastRaw) {
      return this.allowed;
    }
    this.lastRaw = raw;
    const parsed = parseConsentRecord(raw);
    if (parsed.ok) {
      this.allowed = parsed.allowed;
      this.reportedProblem = null;
    } else {
      // Never trust half of a record: ignoring it only means the user is asked again. Said once, not per server.
      if (this.reportedProblem !== parsed.problem) {
        this.logger.warn(`stored consent decisions ignored (${parsed.problem}): every server asks for consent again`);
        this.reportedProblem = parsed.problem;
      }
      this.allowed = new Map();
    }
    return this.allowed;
  }

  private async save(allowed: Map<string, string>): Promise<void> {
    const record: ConsentRecord = { version: CONSENT_STORE_VERSION, allowed: Object.fromEntries(allowed) };
    this.allowed = allowed;
    this.lastRaw = record;
    await this.storage.update(CONSENT_STORAGE_KEY, record);
  }
}
