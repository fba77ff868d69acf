// Optional OTLP export of the same metrics, configured only by the standard OTEL_EXPORTER_OTLP_* variables.

import type { Attributes, Counter, Histogram } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  InstrumentType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { ALL_STATES, MCP_DURATION_BUCKETS, type CounterKind, type ProbeContext, type ServerLabels } from './series';
import type { BuildInfo } from './promSink';
import { healthValue, type MetricsSink, type ServerSample } from './tracker';

const DEFAULT_EXPORT_INTERVAL_MS = 60_000;
const SHUTDOWN_LIMIT_MS = 5_000;

type Env = Readonly<Record<string, string | undefined>>;

/** Off unless an endpoint is configured; `OTEL_METRICS_EXPORTER=none` turns it off even then. */
export function otlpConfigured(env: Env): boolean {
  if (
    (env.OTEL_METRICS_EXPORTER ?? '')
      .split(',')
      .map((value) => value.trim())
      .includes('none')
  )
    return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
}

/** This exporter speaks OTLP/HTTP with JSON bodies; a request for another protocol gets a warning, not silence. */
export function otlpProtocolWarning(env: Env): string | undefined {
  const protocol = env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol === undefined || protocol === '' || protocol === 'http/json') return undefined;
  return `OTLP protocol "${protocol}" is not supported; metrics are sent as http/json`;
}

function exportInterval(env: Env): number {
  const value = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return Number.isFinite(value) && value >= 100 ? value : DEFAULT_EXPORT_INTERVAL_MS;
}

/**
 * The OTLP exporter as configured by the environment, except for observable gauges: those are read fresh at every
 * collection with delta temporality, so a server that was removed or relabelled (era learned) stops being reported.
 * With cumulative temporality the SDK keeps every attribute set it ever saw, and a gone `up=0` would page forever.
 * (A gauge point carries no temporality on the wire: nothing else changes for the receiver.)
 */
function freshGauges(exporter: PushMetricExporter): PushMetricExporter {
  return {
    export: (metrics, done) => exporter.export(metrics, done),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: (type) =>
      type === InstrumentType.OBSERVABLE_GAUGE
        ? AggregationTemporality.DELTA
        : (exporter.selectAggregationTemporality?.(type) ?? AggregationTemporality.CUMULATIVE),
    ...(exporter.selectAggregation ? { selectAggregation: exporter.selectAggregation.bind(exporter) } : {}),
  };
}

/** `network.transport` always, `mcp.protocol.version` once negotiated; never `mcp.session.id` (see series.ts). */
export function conventionAttributes(context: ProbeContext): Attributes {
  return {
    'network.transport': context.networkTransport,
    ...(context.protocolVersion ? { 'mcp.protocol.version': context.protocolVersion } : {}),
  };
}

/**
 * OpenTelemetry names: the semantic-convention histograms `mcp.client.operation.duration` (attributes `mcp.method.name`,
 * `network.transport`, `mcp.protocol.version`, `error.type`) and `mcp.client.session.duration`, and `mcp_health.*` for the
 * rest; a collector's Prometheus exporter turns them into the names `/metrics` serves.
 */
export class OtlpSink implements MetricsSink {
  private readonly provider: MeterProvider;
  private readonly duration: Histogram;
  private readonly sessionDuration: Histogram;
  private readonly probes: Counter;
  private readonly counters: Record<CounterKind, Counter>;

  constructor(samples: () => readonly ServerSample[], build: BuildInfo, env: Env) {
    this.provider = new MeterProvider({
      resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'mcp-health', 'service.version': build.version }),
      readers: [
        new PeriodicExportingMetricReader({ exporter: freshGauges(new OTLPMetricExporter()), exportIntervalMillis: exportInterval(env) }),
      ],
    });
    const meter = this.provider.getMeter('mcp-health', build.version);
    this.duration = meter.createHistogram('mcp.client.operation.duration', {
      unit: 's',
      description: 'Duration of MCP probe requests as seen by mcp-health.',
      advice: { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] },
    });
    this.sessionDuration = meter.createHistogram('mcp.client.session.duration', {
      unit: 's',
      description: 'Duration of the MCP sessions (connections) mcp-health held, from open to close.',
      advice: { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] },
    });
    this.probes = meter.createCounter('mcp_health.probes', { description: 'Keepalive probes by result.' });
    this.counters = {
      restarts: meter.createCounter('mcp_health.restarts', { description: 'Restarts of the MCP server.' }),
      reconnects: meter.createCounter('mcp_health.reconnects', { description: 'Connect attempts after the first one.' }),
      violations: meter.createCounter('mcp_health.protocol_violations', { description: 'Replies against the MCP protocol.' }),
      toolsChanged: meter.createCounter('mcp_health.tools_changed', {
        description: 'Changes of the tool set from the accepted baseline (tool drift).',
      }),
    };
    const gauge = (name: string, description: string, unit: string | undefined, read: (sample: ServerSample) => number | null) => {
      meter.createObservableGauge(name, { description, ...(unit ? { unit } : {}) }).addCallback((result) => {
        for (const sample of samples()) {
          const value = read(sample);
          if (value !== null) result.observe(value, { ...sample.labels });
        }
      });
    };
    gauge('mcp_health.up', 'Whether the MCP server answers its keepalive probes.', undefined, (sample) => (sample.state === 'up' ? 1 : 0));
    gauge('mcp_health.healthy', 'Whether the MCP server is healthy: up, not flapping and not slow.', undefined, healthValue);
    gauge('mcp_health.flapping', 'Whether the MCP server restarts too often.', undefined, (sample) => (sample.flapping ? 1 : 0));
    gauge('mcp_health.last_probe.timestamp', 'When the last probe settled.', 's', (sample) => sample.lastProbeSeconds);
    meter.createObservableGauge('mcp_health.state', { description: 'The monitor state, one-hot.' }).addCallback((result) => {
      for (const sample of samples()) {
        for (const state of ALL_STATES) result.observe(sample.state === state ? 1 : 0, { ...sample.labels, state });
      }
    });
    meter
      .createObservableGauge('mcp_health.build_info', { description: 'mcp-health build information; always 1.' })
      .addCallback((result) => {
        result.observe(1, { version: build.version, 'nodejs.version': process.version, front_end: build.frontEnd });
      });
  }

  probe(
    labels: ServerLabels,
    method: string,
    outcome: string,
    seconds: number | undefined,
    errorType: string | undefined,
    context: ProbeContext,
  ): void {
    this.probes.add(1, { ...labels, result: outcome });
    if (seconds === undefined) return;
    const attributes: Attributes = {
      ...labels,
      'mcp.method.name': method,
      ...conventionAttributes(context),
      ...(errorType ? { 'error.type': errorType } : {}),
    };
    this.duration.record(seconds, attributes);
  }

  session(labels: ServerLabels, seconds: number, errorType: string | undefined, context: ProbeContext): void {
    this.sessionDuration.record(seconds, {
      ...labels,
      ...conventionAttributes(context),
      ...(errorType ? { 'error.type': errorType } : {}),
    });
  }

  count(kind: CounterKind, labels: ServerLabels, by: number): void {
    this.counters[kind].add(by, { ...labels });
  }

  /** Cumulative OTLP streams cannot be withdrawn; a gone server's gauges simply stop being observed. */
  forget(): void {}

  /** Sends what is left, bounded: a collector that went away must not hold the exit. */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.provider.shutdown().catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_LIMIT_MS))),
    ]);
    clearTimeout(timer);
  }
}
