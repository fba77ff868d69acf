// ServerStatus snapshots for the presentation tests: a healthy stdio server by default, with any field overridable.

import type { ProbeRecord, ProbeStats, ServerConfig, ServerStatus, SourceRef } from '../../../src/core/model';
import { EMPTY_PROBE_STATS } from '../../../src/core/monitor/probeStats';
import { serverConfig } from '../../helpers/serverConfig';

export const WORKSPACE = '/ws/app';
export const WORKSPACE_FILE = `${WORKSPACE}/.vscode/mcp.json`;

export interface StatusOverrides extends Partial<Omit<ServerStatus, 'config' | 'stats'>> {
  readonly config?: Partial<Omit<ServerConfig, 'source'>> & { readonly source?: Partial<SourceRef> };
  readonly stats?: Partial<ProbeStats>;
}

export function config(name: string, overrides: StatusOverrides['config'] = {}): ServerConfig {
  const { source, ...rest } = overrides;
  // The folder stays whatever the scope: these snapshots change one source field at a time.
  return serverConfig(name, { ...rest, source: { file: WORKSPACE_FILE, folder: WORKSPACE, ...source } });
}

export const emptyStats: ProbeStats = EMPTY_PROBE_STATS;

export function status(name: string, overrides: StatusOverrides = {}): ServerStatus {
  const { config: configOverrides, stats, ...rest } = overrides;
  return {
    config: config(name, configOverrides),
    state: 'up',
    era: 'handshake',
    protocolVersion: '2025-06-18',
    serverInfo: { name: `${name}-server`, version: '1.0.0' },
    lastRttMs: 3,
    lastError: null,
    lastProbeAt: null,
    lastStateChangeAt: null,
    consecutiveFailures: 0,
    restarts: 0,
    flapping: false,
    nonConformant: false,
    stats: { ...emptyStats, ...stats },
    stderrTail: '',
    pid: null,
    ...rest,
  };
}

export function probes(outcomes: readonly ProbeRecord['outcome'][], startAt = 1_000, stepMs = 1_000): ProbeRecord[] {
  return outcomes.map((outcome, index) => ({
    at: startAt + index * stepMs,
    method: 'ping',
    outcome,
    ...(outcome === 'ok' ? { rttMs: 2 + index } : {}),
  }));
}
