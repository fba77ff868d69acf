// The fault matrix's observation harness: the real registry on the real connector and the system clock, with short
// settings, plus a connector wrapper that counts connect attempts and the probes each connection carried.

import type { Connection, ConnectOptions, Connector } from '../../../src/core/connection';
import { systemClock } from '../../../src/core/clock';
import type { ProbeMethod, ProbeResult, ServerConfig, ServerError, ServerState, ServerStatus } from '../../../src/core/model';
import { backoffCap, createRegistry, type TrustAwareRegistry } from '../../../src/core/monitor';
import { defaultMonitorSettings, type MonitorSettings } from '../../../src/core/monitorTypes';
import { createNodeConnector } from '../../../src/mcp';
import { collectingLogger, type CollectingLogger } from '../../helpers/collectingLogger';
import { serverConfig as buildConfig, userSource } from '../../helpers/serverConfig';
import { sleep } from '../../helpers/wait';

/** Rows run side by side within a file; node runs two files at once, so at most twice this many peers live together. */
export const ROW_CONCURRENCY = 3;

export const FAST_SETTINGS: MonitorSettings = {
  ...defaultMonitorSettings,
  intervalMs: { stdio: 1_000, http: 1_000, sse: 1_000 },
  // Short, yet above what a loaded shared machine adds to a local round trip (a session renewal is two of them).
  timeoutMs: 1_000,
  // A cold node child on a loaded 2-core machine can take seconds to answer initialize.
  connectTimeoutMs: 6_000,
  // These rows are about faults, not slow first starts (test/integration/cli/startup.test.ts): one bound for both.
  startupTimeoutMs: 6_000,
  backoff: { initialMs: 200, maxMs: 2_000 },
  flapping: { windowMs: 60_000, restarts: 3, stableMs: 30_000 },
};

/**
 * Jitter in [0.5, 1) of the cap: still random, but with a floor, so the number of reconnects a window can hold has a
 * hard upper bound the storm check can assert (full jitter from 0 has none).
 */
export function flooredJitter(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return 0.5 + ((state >>> 0) / 2 ** 32) * 0.5;
  };
}

/** Most connect attempts a window of `windowMs` can hold when every delay is at least half its backoff cap. */
export function maxConnectsWithin(windowMs: number, backoff: MonitorSettings['backoff']): number {
  let attempts = 1;
  let elapsed = 0;
  for (let attempt = 0; attempt < 10_000; attempt++) {
    elapsed += Math.floor(0.5 * backoffCap(attempt, backoff));
    if (elapsed > windowMs) break;
    attempts += 1;
  }
  return attempts;
}

export interface ConnectionRecord {
  readonly openedAt: number;
  readonly probes: Array<{ method: ProbeMethod; outcome: ProbeResult['outcome']; at: number }>;
  closedByPeer: boolean;
}

export interface CountingConnector extends Connector {
  readonly attempts: number[];
  readonly failures: Array<{ at: number; error: unknown }>;
  readonly connections: ConnectionRecord[];
}

/** Delegates to the real connector, recording every attempt and every probe per connection. */
export function countingConnector(inner: Connector): CountingConnector {
  const attempts: number[] = [];
  const failures: Array<{ at: number; error: unknown }> = [];
  const connections: ConnectionRecord[] = [];
  return {
    attempts,
    failures,
    connections,
    async connect(server: ServerConfig, options: ConnectOptions): Promise<Connection> {
      attempts.push(performance.now());
      let connection: Connection;
      try {
        connection = await inner.connect(server, options);
      } catch (error) {
        failures.push({ at: performance.now(), error });
        throw error;
      }
      const record: ConnectionRecord = { openedAt: performance.now(), probes: [], closedByPeer: false };
      connections.push(record);
      connection.onClose(() => (record.closedByPeer = true));
      return {
        get era() {
          return connection.era;
        },
        get protocolVersion() {
          return connection.protocolVersion;
        },
        get serverInfo() {
          return connection.serverInfo;
        },
        get pid() {
          return connection.pid;
        },
        async probe(timeoutMs: number, method?: ProbeMethod): Promise<ProbeResult> {
          const result = await connection.probe(timeoutMs, method);
          record.probes.push({ method: result.method, outcome: result.outcome, at: performance.now() });
          return result;
        },
        onActivity: (listener) => connection.onActivity(listener),
        onClose: (listener) => connection.onClose(listener),
        onStderr: (listener) => connection.onStderr(listener),
        close: () => connection.close(),
      };
    },
  };
}

export interface Transition {
  readonly at: number;
  readonly from: ServerState;
  readonly to: ServerState;
  readonly reason: string;
  readonly error: ServerError | null;
}

export interface Observed {
  readonly registry: TrustAwareRegistry;
  readonly connector: CountingConnector;
  readonly transitions: Transition[];
  readonly logger: CollectingLogger;
  readonly startedAt: number;
  status(): ServerStatus;
  /** Polls until `condition` holds on the current status, or `timeoutMs` passes; returns whether it held. */
  until(condition: (status: ServerStatus, transitions: readonly Transition[]) => boolean, timeoutMs: number): Promise<boolean>;
  dispose(): Promise<void>;
}

const source = userSource('/tmp/mcp-health-faults/mcp.json');

export function serverConfig(
  name: string,
  transport: ServerConfig['transport'],
  target: { command: string; args: string[] } | string,
): ServerConfig {
  const launch = typeof target === 'string' ? { url: target } : { command: target.command, args: target.args };
  return buildConfig(name, { source, transport, ...launch });
}

/** Starts monitoring one server with the real connector and records what a user would see. */
export function observe(server: ServerConfig, settings: MonitorSettings = FAST_SETTINGS, seed = 7): Observed {
  const logger = collectingLogger();
  const connector = countingConnector(createNodeConnector({ logger }));
  const registry = createRegistry({ connector, clock: systemClock, logger, settings, random: flooredJitter(seed) });
  const transitions: Transition[] = [];
  registry.onEvent((event) => {
    if (event.type === 'state') {
      transitions.push({ at: performance.now(), from: event.from, to: event.to, reason: event.reason, error: event.status.lastError });
    }
  });
  registry.setServers([server], []);
  const startedAt = performance.now();
  registry.start();
  const status = () => {
    const current = registry.get(server.id);
    if (!current) throw new Error(`server ${server.id} vanished from the registry`);
    return current;
  };
  return {
    registry,
    connector,
    transitions,
    logger,
    startedAt,
    status,
    async until(condition, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (performance.now() < deadline) {
        if (condition(status(), transitions)) return true;
        await sleep(25);
      }
      return condition(status(), transitions);
    },
    dispose: () => registry.dispose(),
  };
}

export { isAlive } from '../../helpers/processes';
export { sleep };

/** Connect attempts inside [from, to] against the bound the backoff settings allow for that span. */
export function stormCheck(
  observed: Observed,
  from: number,
  to: number,
  settings: MonitorSettings = FAST_SETTINGS,
): { attempts: number; bound: number; perMinute: number; boundPerMinute: number } {
  const attempts = observed.connector.attempts.filter((at) => at >= from && at <= to).length;
  const windowMs = Math.max(1, to - from);
  const bound = maxConnectsWithin(windowMs, settings.backoff);
  return { attempts, bound, perMinute: (attempts * 60_000) / windowMs, boundPerMinute: (bound * 60_000) / windowMs };
}

export { collectingLogger, type CollectingLogger };
