// The Prometheus side: prom-client metrics fed by the tracker, exposed in the text format and in OpenMetrics.

import { Counter, Gauge, Registry, type Metric, type RegistryContentType } from 'prom-client';
import { CachedExposition, type Body, type Published } from './exposition';
import { SampledCounter } from './sampledCounter';
import { DurationHistogram, OneHotGauge, SampledGauge, SampledMetric, type SampleValue } from './sampledMetrics';
import { ALL_STATES, MCP_DURATION_BUCKETS, PROM, SERVER_LABEL_NAMES, type CounterKind, type ServerLabels } from './series';
import { healthValue, type MetricsSink, type SampleSource, type ServerSample } from './tracker';

export interface BuildInfo {
  readonly version: string;
  /** `cli` or `vscode`: which front end runs the monitor. */
  readonly frontEnd: string;
}

export interface Exposition {
  readonly contentType: string;
  /** UTF-8, in parts to send one after the other. */
  readonly body: Body;
}

const SERVER_LABELS = [...SERVER_LABEL_NAMES];

export class PromSink implements MetricsSink {
  private readonly registry = new Registry<RegistryContentType>();
  private readonly duration: DurationHistogram;
  private readonly probes: SampledCounter;
  private readonly counters: Record<CounterKind, Counter>;
  /** Every metric in the order of registration, with what says it changed. */
  private readonly published: Published[] = [];
  /** Counts the changes of each prom-client counter: all of them go through this sink. */
  private readonly counterChanges = new Map<Metric, number>();
  private readonly exposition: CachedExposition;
  /** Renders run one at a time: prom-client renames counters in place for OpenMetrics (see exposition.ts). */
  private rendering: Promise<unknown> = Promise.resolve();

  constructor(source: SampleSource, build: BuildInfo) {
    const registers = [this.registry];
    const publish = <T>(name: string, metric: T, revision: () => number): T => {
      // Our own sampled metrics write their text themselves (sampledText.ts); prom-client's write it through the registry.
      const bytes = metric instanceof SampledMetric ? () => metric.bytes() : undefined;
      this.published.push({ name, metric: metric as unknown as Metric, revision, bytes });
      return metric;
    };
    const gauge = (name: string, help: string, revision: () => number, values: (all: readonly ServerSample[]) => SampleValue[]) =>
      this.registry.registerMetric(
        publish(name, new SampledGauge(name, help, () => values(source.samples()), revision), revision) as unknown as Metric,
      );
    const counter = (name: string, help: string, labelNames: string[]): Counter => {
      const metric: Counter = publish(
        name,
        new Counter({ name, help, labelNames, registers }),
        () => this.counterChanges.get(metric as unknown as Metric) ?? 0,
      );
      return metric;
    };
    const states = () => source.stateRevision();
    const probes = () => source.probeRevision();
    gauge(PROM.up, 'Whether the MCP server answers its keepalive probes (1 up, 0 otherwise).', states, (all) =>
      all.map((sample) => ({ sharedLabels: sample.labels, value: sample.state === 'up' ? 1 : 0 })),
    );
    gauge(
      PROM.healthy,
      'Whether the MCP server is healthy: up, not flapping and not slow (1 healthy); the series to alert on.',
      states,
      (all) => all.map((sample) => ({ sharedLabels: sample.labels, value: healthValue(sample) })),
    );
    const state = new OneHotGauge(
      PROM.state,
      'The monitor state of the MCP server, one-hot over every state.',
      'state',
      ALL_STATES,
      () => source.samples(),
      states,
    );
    this.registry.registerMetric(publish(PROM.state, state, states) as unknown as Metric);
    gauge(PROM.flapping, 'Whether the MCP server restarts too often (1 flapping).', states, (all) =>
      all.map((sample) => ({ sharedLabels: sample.labels, value: sample.flapping ? 1 : 0 })),
    );
    gauge(PROM.lastProbe, 'When the last keepalive probe of the MCP server settled, in seconds since the epoch.', probes, (all) =>
      all.flatMap((sample) => (sample.lastProbeSeconds === null ? [] : [{ sharedLabels: sample.labels, value: sample.lastProbeSeconds }])),
    );
    publish(
      PROM.buildInfo,
      new Gauge({
        name: PROM.buildInfo,
        help: 'mcp-health build information; always 1.',
        labelNames: ['version', 'nodejs_version', 'front_end'],
        registers,
      }),
      () => 0,
    ).set({ version: build.version, nodejs_version: process.version, front_end: build.frontEnd }, 1);
    this.duration = new DurationHistogram(
      PROM.duration,
      'Duration of MCP probe requests as seen by mcp-health (semantic convention mcp.client.operation.duration).',
      MCP_DURATION_BUCKETS,
    );
    const duration = this.duration;
    this.registry.registerMetric(publish(PROM.duration, duration, () => duration.revision()) as unknown as Metric);
    const probeCounter = new SampledCounter(PROM.probes, 'Keepalive probes by result.', 'result');
    this.probes = probeCounter;
    this.registry.registerMetric(publish(PROM.probes, probeCounter, () => probeCounter.revision()) as unknown as Metric);
    this.counters = {
      restarts: counter(PROM.restarts, 'Restarts of the MCP server (a connection that was up died and was reopened).', SERVER_LABELS),
      reconnects: counter(PROM.reconnects, 'Connect attempts after the first one.', SERVER_LABELS),
      violations: counter(
        PROM.violations,
        'Replies against the MCP protocol (error or non-empty result to a ping, bad handshake).',
        SERVER_LABELS,
      ),
      toolsChanged: counter(PROM.toolsChanged, 'Changes of the tool set from the accepted baseline (tool drift).', SERVER_LABELS),
    };
    this.exposition = new CachedExposition(this.registry, this.published);
  }

  /** The semantic-convention context (network.transport, mcp.protocol.version) is OTLP's only: /metrics keeps its labels. */
  probe(labels: ServerLabels, method: string, outcome: string, seconds: number | undefined, errorType: string | undefined): void {
    this.probes.inc(labels, outcome);
    if (seconds === undefined) return;
    this.duration.observe(labels, method, errorType, seconds);
  }

  count(kind: CounterKind, labels: ServerLabels, by: number): void {
    this.counters[kind].inc(labels, by);
    this.changed(this.counters[kind]);
  }

  forget(labels: ServerLabels): void {
    this.duration.forget(labels);
    this.probes.forget(labels);
    for (const counter of Object.values(this.counters)) {
      counter.remove(labels);
      this.changed(counter);
    }
  }

  /** Negotiates on `Accept` as Prometheus does: OpenMetrics when asked for, the 0.0.4 text format otherwise. */
  render(accept: string | undefined): Promise<Exposition> {
    const openMetrics = accept?.includes('application/openmetrics-text') ?? false;
    const next = this.rendering.then(async () => ({
      contentType: openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE,
      body: await this.exposition.render(openMetrics),
    }));
    this.rendering = next.catch(() => undefined);
    return next;
  }

  /** The reference output, prom-client's own Registry#metrics(), for the differential test of the exposition. */
  async referenceBody(openMetrics: boolean): Promise<string> {
    const next = this.rendering.then(async () => {
      this.registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
      if (!openMetrics) {
        // metrics() strips `_total` from a counter's name in place for OpenMetrics and never puts it back.
        for (const { name, metric } of this.published) (metric as unknown as { name: string }).name = name;
      }
      return this.registry.metrics();
    });
    this.rendering = next.catch(() => undefined);
    return next;
  }

  private changed(metric: Metric | Counter): void {
    const key = metric as unknown as Metric;
    this.counterChanges.set(key, (this.counterChanges.get(key) ?? 0) + 1);
  }
}
