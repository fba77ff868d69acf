// One /probe: the target becomes a one-server registry, probed exactly as `mcp-health check` probes (the same
// connector, Streamable HTTP falling back to legacy SSE, era negotiation, the same probe policy and causes), then the
// registry is disposed. Nothing here judges the server: the verdict is the monitor's state, the cause its cause.

import type { Clock } from '../../core/clock';
import type { Connector } from '../../core/connection';
import { silentLogger } from '../../core/logger';
import type { Era, ServerConfig, ServerState } from '../../core/model';
import { createRegistry } from '../../core/monitor';
import { defaultInventorySettings, defaultMonitorSettings, type MonitorSettings } from '../../core/monitorTypes';
import { redactText } from '../../core/redact';
import type { ProbeModule } from './modules';

/** Failure causes of a probe beyond the monitor's own (src/core/causes.ts): every label value is from a closed set. */
export type ProbeOnlyCause = 'tools-hash-mismatch' | 'tools-not-listed' | 'timeout' | 'unknown';

export interface ProbeReport {
  readonly success: boolean;
  /** The whole probe, wall time as the scraper waited for it. */
  readonly durationSeconds: number;
  /** Opening the connection: spawn-free here, so the HTTP handshake (initialize, or server/discover). */
  readonly connectSeconds: number | null;
  /** The probe request's round trip (ping, or the era's fallback). */
  readonly rttSeconds: number | null;
  readonly state: ServerState;
  readonly era: Era | null;
  readonly protocolVersion: string | null;
  /** Tools the server listed; null when not listed (module says no, or the server has no tools capability). */
  readonly tools: number | null;
  /** Whether the listed set matches the module's expected hash; null when the module expects none. */
  readonly toolsHashMatch: boolean | null;
  /** The certificate's notAfter, Unix seconds; null unless https and read. */
  readonly certificateExpirySeconds: number | null;
  /** Why it failed, a bounded id (src/core/causes.ts or ProbeOnlyCause); null on success. */
  readonly cause: string | null;
}

export interface ProbeDeps {
  /** Shared by every probe of one module (its proxy); never disposed by a probe. */
  readonly connector: Connector;
  readonly clock: Clock;
}

/**
 * Probes `url` with `module` within `budgetMs` (connect, probe and listing each bounded by it, and the whole too).
 * `report` settles with the verdict as soon as it is known; `closed` once the connection is gone (the caller holds its
 * concurrency slot until then, so the bound counts sockets, not only answers).
 */
export function probeTarget(
  url: URL,
  module: ProbeModule,
  budgetMs: number,
  deps: ProbeDeps,
): { report: Promise<ProbeReport>; closed: Promise<void> } {
  const { clock } = deps;
  const started = clock.monotonic();
  const config: ServerConfig = {
    id: `probe#${url.href}`,
    name: url.host,
    source: { file: '/probe', line: 1, column: 1, format: 'vscode', scope: 'user' },
    transport: 'http',
    url: url.href,
    headers: module.headers,
    secretValues: module.secretValues,
  };
  const settings: MonitorSettings = {
    ...defaultMonitorSettings,
    timeoutMs: budgetMs,
    connectTimeoutMs: budgetMs,
    inventory: { ...defaultInventorySettings, enabled: module.listTools, budgetMs },
  };
  const registry = createRegistry({
    // The module's connector outlives this registry, which would dispose it.
    connector: { connect: (server, options) => deps.connector.connect(server, options) },
    clock,
    logger: silentLogger,
    settings,
    redact: (text) => redactText(text, module.secretValues),
  });
  let connectMs: number | null = null;
  let rttMs: number | null = null;
  const unsubscribe = registry.onEvent((event) => {
    if ('status' in event && event.status.handshakeMs != null) connectMs = event.status.handshakeMs;
    if (event.type === 'probe' && event.result.rttMs !== undefined) rttMs = event.result.rttMs;
  });
  registry.setServers([config], []);
  const report = (async (): Promise<ProbeReport> => {
    const work = (async () => {
      await registry.pingNow(config.id);
      await registry.settleInventory(config.id);
    })();
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const outOfTime = new Promise<'timeout'>((resolve) => (timer = clock.setTimeout(() => resolve('timeout'), budgetMs)));
    const outcome = await Promise.race([work.then(() => 'done' as const), outOfTime]);
    if (timer !== undefined) clock.clearTimeout(timer);
    const status = registry.get(config.id);
    const durationSeconds = (clock.monotonic() - started) / 1000;
    const state = status?.state ?? 'idle';
    const tools = status?.inventory?.tools ?? null;
    const toolsHashMatch =
      module.expectedToolsHash === undefined
        ? null
        : tools !== null && status?.inventory?.complete === true && tools.hash === module.expectedToolsHash;
    const up = outcome === 'done' && state === 'up';
    const success = up && toolsHashMatch !== false;
    let cause: string | null = null;
    if (!success) {
      if (outcome === 'timeout') cause = 'timeout';
      else if (up) cause = tools === null || status?.inventory?.complete !== true ? 'tools-not-listed' : 'tools-hash-mismatch';
      else cause = status?.cause?.id ?? 'unknown';
    }
    return {
      success,
      durationSeconds,
      connectSeconds: connectMs === null ? null : connectMs / 1000,
      rttSeconds: rttMs === null ? null : rttMs / 1000,
      state,
      era: status?.era ?? null,
      protocolVersion: status?.protocolVersion ?? null,
      tools: module.listTools && tools !== null ? tools.count : null,
      toolsHashMatch,
      certificateExpirySeconds: status?.certificate ? Math.floor(status.certificate.validTo / 1000) : null,
      cause,
    };
  })();
  const closed = report
    .then(
      () => undefined,
      () => undefined,
    )
    .then(async () => {
      unsubscribe();
      await registry.dispose();
    });
  return { report, closed };
}
