// What the dashboard webview receives: plain, redacted data per server, nothing it could execute.

import type { ServerStatus } from '../../core/model';
import { describeState, healthOf, type Health } from './states';

export interface DashboardServer {
  readonly id: string;
  readonly name: string;
  readonly health: Health;
  readonly summary: string;
  readonly transport: string;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly uptimePercent: number | null;
  readonly restarts: number;
  /** False for servers that cannot be probed now (disabled, Restricted Mode, config error, waiting for input). */
  readonly probeable: boolean;
  readonly probes: ReadonlyArray<{ readonly at: number; readonly ok: boolean; readonly rttMs: number | null; readonly outcome: string }>;
}

export const DASHBOARD_PROBES = 40;

export function dashboardServers(statuses: readonly ServerStatus[]): DashboardServer[] {
  return statuses.map((status) => ({
    id: status.config.id,
    name: status.config.name,
    health: healthOf(status),
    summary: describeState(status),
    transport: status.config.transport,
    p50Ms: status.stats.p50Ms,
    p95Ms: status.stats.p95Ms,
    uptimePercent: status.stats.uptimePercent,
    restarts: status.restarts,
    probeable: !['disabled', 'untrusted', 'config-error', 'needs-input'].includes(status.state),
    probes: status.stats.recent.slice(-DASHBOARD_PROBES).map((probe) => ({
      at: probe.at,
      ok: probe.outcome === 'ok',
      rttMs: probe.rttMs ?? null,
      outcome: probe.outcome,
    })),
  }));
}
