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
  readonly probes: ReadonlyArray<DashboardBeat>;
  /**
   * The heartbeat bar: recent probes and restarts in time order. A crash-looping server may answer every probe it gets
   * between crashes; its restarts must show in the bar too, or it would look healthy there.
   */
  readonly beats: ReadonlyArray<DashboardBeat>;
}

export interface DashboardBeat {
  readonly at: number;
  readonly ok: boolean;
  readonly rttMs: number | null;
  /** A probe outcome, or `restart` for a reconnect after the connection was lost. */
  readonly outcome: string;
}

export const DASHBOARD_PROBES = 40;

export function dashboardServers(statuses: readonly ServerStatus[]): DashboardServer[] {
  return statuses.map((status) => {
    const probes: DashboardBeat[] = status.stats.recent.slice(-DASHBOARD_PROBES).map((probe) => ({
      at: probe.at,
      ok: probe.outcome === 'ok',
      rttMs: probe.rttMs ?? null,
      outcome: probe.outcome,
    }));
    const restarts: DashboardBeat[] = status.stats.restartTimes.map((at) => ({ at, ok: false, rttMs: null, outcome: 'restart' }));
    const beats = [...probes, ...restarts].sort((a, b) => a.at - b.at).slice(-DASHBOARD_PROBES);
    return {
      id: status.config.id,
      name: status.config.name,
      health: healthOf(status),
      summary: describeState(status),
      transport: status.config.transport,
      p50Ms: status.stats.p50Ms,
      p95Ms: status.stats.p95Ms,
      uptimePercent: status.stats.uptimePercent,
      restarts: status.restarts,
      probeable: !['disabled', 'untrusted', 'needs-consent', 'config-error', 'needs-input'].includes(status.state),
      probes,
      beats,
    };
  });
}
