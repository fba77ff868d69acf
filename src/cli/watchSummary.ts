// The last line of `watch --json`: per server, what the whole run saw.

import type { ServerStatus } from '../core/model';
import { serverReport } from './format';

export function watchSummary(statuses: readonly ServerStatus[], startedAt: number, now: number) {
  return {
    ts: new Date(now).toISOString(),
    type: 'summary',
    durationMs: Math.round(now - startedAt),
    servers: statuses.map((status) => ({
      id: status.config.id,
      server: status.config.name,
      state: status.state,
      // The run's totals: the percentiles below are over the last probes only (the window of `stats.recent`).
      probes: status.stats.totals.sent,
      ok: status.stats.totals.ok,
      failed: status.stats.totals.failed,
      p50Ms: status.stats.p50Ms,
      p95Ms: status.stats.p95Ms,
      uptimePercent: status.stats.uptimePercent,
      restarts: status.restarts,
      flapping: status.flapping,
      lastError: status.lastError ? { kind: status.lastError.kind, message: status.lastError.message } : null,
      stderrTail: serverReport(status).stderrTail,
      cause: status.cause ? { id: status.cause.id, summary: status.cause.summary } : null,
      nextStep: status.cause?.nextStep ?? null,
      tools: status.inventory?.tools ? { count: status.inventory.tools.count, hash: status.inventory.tools.hash } : null,
    })),
  };
}
