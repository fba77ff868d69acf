// Re-discovery, server by server: which monitors a new list keeps, follows to a new line, replaces, adds and drops.
// The registry creates and retires; this decides, so that an edit restarts only the server that was edited.

import type { ConfigDiagnostic, ServerConfig, ServerError } from '../model';
import { deepEqual } from './deepEqual';
import { brokenServers, configErrorOf } from './gate';

export interface DesiredServer {
  readonly config: ServerConfig;
  readonly configError: ServerError | null;
}

/** What reconciling needs of a monitor. */
export interface Reconcilable {
  readonly config: ServerConfig;
  readonly configError: ServerError | null;
  relocate(config: ServerConfig): void;
}

export interface Reconciled<M> {
  readonly next: Map<string, M>;
  /** New monitors, to start when monitoring runs. */
  readonly added: readonly M[];
  /** Replaced or removed monitors, to dispose. */
  readonly retired: readonly M[];
  /** Whether the list views show changed (servers, their order or where they are written). */
  readonly changed: boolean;
}

/** Each server once (the first definition of an id wins), then the broken entries the diagnostics name. */
export function desiredServers(servers: readonly ServerConfig[], diagnostics: readonly ConfigDiagnostic[]): DesiredServer[] {
  const desired: DesiredServer[] = [];
  const seen = new Set<string>();
  for (const config of servers) {
    if (!seen.has(config.id)) {
      seen.add(config.id);
      desired.push({ config, configError: configErrorOf(config, diagnostics) });
    }
  }
  for (const broken of brokenServers(servers, diagnostics)) {
    if (!seen.has(broken.config.id)) {
      seen.add(broken.config.id);
      desired.push({ config: broken.config, configError: broken.error });
    }
  }
  return desired;
}

/** Same definition, only its position in the file differs. */
function movedOnly(a: ServerConfig, b: ServerConfig): boolean {
  const at = (config: ServerConfig) => ({ ...config, source: { ...config.source, line: 0, column: 0, keys: undefined } });
  return deepEqual(at(a), at(b));
}

/** `create` gets the monitor it replaces, if any (an edited entry is still the same server). */
export function reconcile<M extends Reconcilable>(
  previous: ReadonlyMap<string, M>,
  desired: readonly DesiredServer[],
  create: (server: DesiredServer, replaced: M | undefined) => M,
): Reconciled<M> {
  let changed = false;
  const next = new Map<string, M>();
  const added: M[] = [];
  const retired: M[] = [];
  for (const server of desired) {
    const { config, configError } = server;
    const existing = previous.get(config.id);
    const sameError = existing !== undefined && deepEqual(existing.configError, configError);
    if (existing && sameError && deepEqual(existing.config, config)) {
      next.set(config.id, existing);
      continue;
    }
    changed = true;
    if (existing && sameError && movedOnly(existing.config, config)) {
      // Editing one server shifts the lines of those below it: they must not restart for that.
      existing.relocate(config);
      next.set(config.id, existing);
      continue;
    }
    if (existing) {
      retired.push(existing);
    }
    const monitor = create(server, existing);
    next.set(config.id, monitor);
    added.push(monitor);
  }
  for (const [id, monitor] of previous) {
    if (!next.has(id)) {
      changed = true;
      retired.push(monitor);
    }
  }
  if (!changed && [...previous.keys()].join('\n') !== [...next.keys()].join('\n')) {
    changed = true;
  }
  return { next, added, retired, changed };
}
