// The answer to one /probe, in the style of the blackbox exporter's probe_* series: a fresh prom-client registry per
// probe (nothing of one target can leak into the answer for another), text format or OpenMetrics on `Accept`.
// Labels come from closed sets only: no URL, header, session id or error text; Prometheus adds `instance` itself.

import { Gauge, Registry, type RegistryContentType } from 'prom-client';
import type { ProbeReport } from './probeTarget';

export const PROBE_SERIES = {
  success: 'mcp_health_probe_success',
  duration: 'mcp_health_probe_duration_seconds',
  phase: 'mcp_health_probe_phase_duration_seconds',
  info: 'mcp_health_probe_info',
  tools: 'mcp_health_probe_tools',
  toolsHashMatch: 'mcp_health_probe_tools_hash_match',
  certificateExpiry: 'mcp_health_probe_tls_cert_expiry_timestamp_seconds',
  failure: 'mcp_health_probe_failure',
} as const;

/** A server's protocolVersion is its own text: only the date form MCP versions take goes into a label. */
export function protocolVersionLabel(version: string | null): string {
  if (version === null) return '';
  return /^\d{4}-\d{2}-\d{2}$/.test(version) ? version : 'other';
}

export async function renderProbe(report: ProbeReport, accept: string | undefined): Promise<{ contentType: string; body: string }> {
  const registry = new Registry<RegistryContentType>();
  const openMetrics = accept?.includes('application/openmetrics-text') ?? false;
  registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
  const registers = [registry];
  const gauge = (name: string, help: string, value: number, labels?: Record<string, string>) => {
    const metric = new Gauge({ name, help, labelNames: labels ? Object.keys(labels) : [], registers });
    if (labels) metric.set(labels, value);
    else metric.set(value);
  };
  gauge(
    PROBE_SERIES.success,
    'Whether the MCP server answered the probe as check would call it up (1) or not (0).',
    report.success ? 1 : 0,
  );
  gauge(PROBE_SERIES.duration, 'How long the whole probe took, in seconds.', report.durationSeconds);
  if (report.connectSeconds !== null || report.rttSeconds !== null) {
    const phases = new Gauge({
      name: PROBE_SERIES.phase,
      help: 'Duration of each phase of the probe: connect (handshake or discover), probe (the ping).',
      labelNames: ['phase'],
      registers,
    });
    if (report.connectSeconds !== null) phases.set({ phase: 'connect' }, report.connectSeconds);
    if (report.rttSeconds !== null) phases.set({ phase: 'probe' }, report.rttSeconds);
  }
  if (report.era !== null) {
    gauge(PROBE_SERIES.info, 'The era and MCP protocol version the server negotiated; always 1.', 1, {
      era: report.era,
      protocol_version: protocolVersionLabel(report.protocolVersion),
    });
  }
  if (report.tools !== null) gauge(PROBE_SERIES.tools, 'Tools the server listed.', report.tools);
  if (report.toolsHashMatch !== null)
    gauge(
      PROBE_SERIES.toolsHashMatch,
      "Whether the listed tool set matches the module's expected_tools_hash (1) or not (0).",
      report.toolsHashMatch ? 1 : 0,
    );
  if (report.certificateExpirySeconds !== null) {
    gauge(
      PROBE_SERIES.certificateExpiry,
      "When the server's TLS certificate expires (notAfter), Unix seconds.",
      report.certificateExpirySeconds,
    );
  }
  if (report.cause !== null)
    gauge(PROBE_SERIES.failure, 'Why the probe failed, as a cause id; always 1, present only on failure.', 1, { cause: report.cause });
  return { contentType: registry.contentType, body: await registry.metrics() };
}
