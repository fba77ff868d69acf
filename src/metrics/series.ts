// What the exporter publishes: metric names, label sets and bucket boundaries, shared by the Prometheus and OTLP sinks.

import type { ProbeOutcome, ProbeResult, ServerState, ServerStatus, TransportKind } from '../core/model';

/** Every health series carries these, and nothing more per server: low cardinality, no secret, no session id. */
export const SERVER_LABEL_NAMES = ['server', 'transport', 'source_file', 'era'] as const;
export type ServerLabels = Readonly<Record<(typeof SERVER_LABEL_NAMES)[number], string>>;

/** Every state, so the one-hot `mcp_health_state` has exactly one 1 per server; a state added to the model fails to compile here. */
const STATES: Record<ServerState, true> = {
  idle: true,
  starting: true,
  connecting: true,
  verifying: true,
  up: true,
  down: true,
  'gave-up': true,
  suspect: true,
  'auth-required': true,
  'needs-input': true,
  'config-error': true,
  disabled: true,
  untrusted: true,
  'needs-consent': true,
  'sandbox-unavailable': true,
};
export const ALL_STATES = Object.keys(STATES) as readonly ServerState[];

/**
 * OpenTelemetry semantic conventions for MCP: `mcp.client.operation.duration`, a histogram in seconds, SHOULD use
 * these explicit bucket boundaries.
 */
export const MCP_DURATION_BUCKETS: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

export const PROM = {
  up: 'mcp_health_up',
  healthy: 'mcp_health_healthy',
  state: 'mcp_health_state',
  flapping: 'mcp_health_flapping',
  lastProbe: 'mcp_health_last_probe_timestamp_seconds',
  buildInfo: 'mcp_health_build_info',
  duration: 'mcp_client_operation_duration_seconds',
  probes: 'mcp_health_probes_total',
  restarts: 'mcp_health_restarts_total',
  reconnects: 'mcp_health_reconnects_total',
  violations: 'mcp_health_protocol_violations_total',
  toolsChanged: 'mcp_health_tools_changed_total',
} as const;

export type CounterKind = 'restarts' | 'reconnects' | 'violations' | 'toolsChanged';

/**
 * The `server` label is the name as written in the config file; two entries of one name in one file are told apart
 * by the `#2` suffix of their id, so label sets stay unique without exposing anything else.
 */
export function serverLabels(status: Pick<ServerStatus, 'config' | 'era'>): ServerLabels {
  const { config } = status;
  const prefix = `${config.source.file}#`;
  const server = config.id.startsWith(prefix) ? config.id.slice(prefix.length) : config.name;
  return { server, transport: config.transport, source_file: config.source.file, era: status.era ?? '' };
}

export function labelsKey(labels: ServerLabels): string {
  return SERVER_LABEL_NAMES.map((name) => labels[name]).join('\u0000');
}

/** A reply against the protocol: an error or a non-empty result to a ping. */
export function isViolation(outcome: ProbeOutcome): boolean {
  return outcome === 'error-reply' || outcome === 'non-empty';
}

/**
 * The duration to record for one probe, in seconds. A timed-out probe took the whole timeout (leaving it out would
 * hide a hung server from the p95); a failure with no answer and no timing (the connection died) is not recorded.
 */
export function probeSeconds(result: ProbeResult, timeoutMs: number): number | undefined {
  if (result.rttMs !== undefined) return result.rttMs / 1000;
  return result.outcome === 'timeout' ? timeoutMs / 1000 : undefined;
}

/**
 * What the OpenTelemetry MCP conventions (now in the GenAI semantic conventions) recommend beside `mcp.method.name` on
 * `mcp.client.operation.duration` and `mcp.client.session.duration`: `network.transport` (`pipe` for stdio, `tcp` for
 * HTTP) and `mcp.protocol.version`. OTLP attributes only: /metrics keeps its label set (`transport` and `era` already
 * say as much), and `mcp.session.id` is never an attribute of a metric (one series per session).
 */
export interface ProbeContext {
  readonly networkTransport: 'pipe' | 'tcp';
  /** The negotiated version when it has the date form MCP versions take; anything else a server sends is left out. */
  readonly protocolVersion: string | undefined;
}

export function probeContext(transport: TransportKind, protocolVersion: string | null): ProbeContext {
  return {
    networkTransport: transport === 'stdio' ? 'pipe' : 'tcp',
    protocolVersion: protocolVersion !== null && /^\d{4}-\d{2}-\d{2}$/.test(protocolVersion) ? protocolVersion : undefined,
  };
}

/** `error.type` per the semantic conventions: set if and only if the operation failed. */
export function errorType(outcome: ProbeOutcome): string | undefined {
  return outcome === 'ok' ? undefined : outcome;
}
