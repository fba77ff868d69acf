// The metrics front end: subscribes to a monitor registry and serves Prometheus /metrics, optionally OTLP too.
// Built into dist/metrics.js of its own so the extension loads prom-client and OpenTelemetry only when asked to.

import type { MonitorRegistry } from '../core/monitorTypes';
import { serveMetrics, MetricsListenError, type MetricsHttpServer } from './httpServer';
import type { ListenAddress } from './listenAddress';
import { otlpConfigured, otlpProtocolWarning, OtlpSink } from './otlpSink';
import { PromSink, type BuildInfo } from './promSink';
import { HealthTracker, lateSource, type MetricsSink } from './tracker';

export { MetricsListenError } from './httpServer';
export { formatListenAddress, parseListenAddress, type ListenAddress } from './listenAddress';

export interface MetricsOptions {
  readonly registry: MonitorRegistry;
  /** Serve /metrics here; undefined serves nothing (OTLP may still run). */
  readonly listen?: ListenAddress;
  readonly build: BuildInfo;
  /** The probe timeout, recorded as the duration of a timed-out probe. */
  readonly timeoutMs: number;
  /** Where OTEL_EXPORTER_OTLP_* are read from (process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly wall?: () => number;
  /** Told about what the user should know (an unsupported OTLP protocol). */
  readonly warn?: (message: string) => void;
}

export interface MetricsExporter {
  /** The bound /metrics address, when serving. */
  readonly address: ListenAddress | undefined;
  readonly otlp: boolean;
  /** Count a tools/list_changed notification (no monitor event carries it yet). */
  toolsChanged(id: string): void;
  /** Answers scrapes in flight with 503, closes the port, flushes OTLP; bounded. */
  close(): Promise<void>;
}

/** Starts the exporter; rejects with MetricsListenError (and leaves nothing behind) when the port cannot be bound. */
export async function startMetrics(options: MetricsOptions): Promise<MetricsExporter> {
  const sinks: MetricsSink[] = [];
  // Sinks read the samples only when scraped or exported, by which time the tracker exists.
  const source = lateSource(() => tracker);
  const samples = () => source.samples();
  const prom = new PromSink(source, options.build);
  sinks.push(prom);
  let otlp: OtlpSink | undefined;
  let server: MetricsHttpServer | undefined;
  if (options.listen) {
    server = await serveMetrics(options.listen, (accept) => prom.render(accept));
  }
  if (otlpConfigured(options.env)) {
    const warning = otlpProtocolWarning(options.env);
    if (warning) options.warn?.(warning);
    otlp = new OtlpSink(samples, options.build, options.env);
    sinks.push(otlp);
  }
  const tracker = new HealthTracker(options.registry, sinks, { wall: options.wall ?? Date.now, timeoutMs: options.timeoutMs });
  let closed: Promise<void> | undefined;
  return {
    address: server?.address,
    otlp: otlp !== undefined,
    toolsChanged: (id) => tracker.toolsChanged(id),
    close: () =>
      (closed ??= (async () => {
        await server?.close();
        await otlp?.shutdown();
        tracker.dispose();
      })()),
  };
}

export function isMetricsListenError(error: unknown): error is MetricsListenError {
  return error instanceof MetricsListenError;
}
