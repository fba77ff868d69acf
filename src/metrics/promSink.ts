// The Prometheus side: prom-client metrics fed by the tracker, exposed in the text format and in OpenMetrics.

import { Counter, Gauge, Registry, type Metric, type RegistryContentType } from 'prom-client';
import { DurationHistogram, NO_LABELS, SampledGauge, type Labels, type SampleValue } from './sampledMetrics';
import { ALL_STATES, MCP_DURATION_BUCKETS, PROM, SERVER_LABEL_NAMES, labelsKey, type CounterKind, type ServerLabels } from './series';
import type { MetricsSink, ServerSample } from './tracker';

export interface BuildInfo {
  readonly version: string;
  /** `cli` or `vscode`: which front end runs the monitor. */
  readonly frontEnd: string;
}

export interface Exposition {
  readonly contentType: string;
  readonly body: string;
}

const SERVER_LABELS = [...SERVER_LABEL_NAMES];
const COUNTER_NAMES = [PROM.probes, PROM.restarts, PROM.reconnects, PROM.violations, PROM.toolsChanged];

export class PromSink implements MetricsSink {
  private readonly registry = new Registry<RegistryContentType>();
  private readonly duration: DurationHistogram;
  private readonly probes: Counter;
  private readonly counters: Record<CounterKind, Counter>;
  /** Label sets with extra labels (method, result) per server, so forgetting a server can remove them exactly. */
  private readonly extraLabelSets = new Map<string, Map<Metric, Map<string, Labels>>>();
  /** Renders run one at a time: prom-client renames counters in place for OpenMetrics (see render). */
  private rendering: Promise<unknown> = Promise.resolve();

  constructor(samples: () => readonly ServerSample[], build: BuildInfo) {
    const registers = [this.registry];
    const gauge = (name: string, help: string, values: (all: readonly ServerSample[]) => SampleValue[]) =>
      this.registry.registerMetric(new SampledGauge(name, help, () => values(samples())) as unknown as Metric);
    gauge(PROM.up, 'Whether the MCP server answers its keepalive probes (1 up, 0 otherwise).', (all) =>
      all.map((sample) => ({ labels: NO_LABELS, sharedLabels: sample.labels, value: sample.state === 'up' ? 1 : 0 })));
    // One label object per server and state, kept as long as the server's labels are (see sampledMetrics.ts).
    const stateLabels = new WeakMap<ServerLabels, readonly Labels[]>();
    const statesOf = (labels: ServerLabels) => {
      let sets = stateLabels.get(labels);
      if (!sets) stateLabels.set(labels, (sets = ALL_STATES.map((state) => Object.freeze({ ...labels, state }))));
      return sets;
    };
    gauge(PROM.state, 'The monitor state of the MCP server, one-hot over every state.', (all) =>
      all.flatMap((sample) => statesOf(sample.labels).map((sharedLabels, index) => ({ labels: NO_LABELS, sharedLabels, value: sample.state === ALL_STATES[index] ? 1 : 0 }))));
    gauge(PROM.flapping, 'Whether the MCP server restarts too often (1 flapping).', (all) =>
      all.map((sample) => ({ labels: NO_LABELS, sharedLabels: sample.labels, value: sample.flapping ? 1 : 0 })));
    gauge(PROM.lastProbe, 'When the last keepalive probe of the MCP server settled, in seconds since the epoch.', (all) =>
      all.flatMap((sample) => (sample.lastProbeSeconds === null ? [] : [{ labels: NO_LABELS, sharedLabels: sample.labels, value: sample.lastProbeSeconds }])));
    new Gauge({ name: PROM.buildInfo, help: 'mcp-health build information; always 1.', labelNames: ['version', 'nodejs_version', 'front_end'], registers })
      .set({ version: build.version, nodejs_version: process.version, front_end: build.frontEnd }, 1);
    this.duration = new DurationHistogram(
      PROM.duration,
      'Duration of MCP probe requests as seen by mcp-health (semantic convention mcp.client.operation.duration).',
      MCP_DURATION_BUCKETS,
    );
    this.registry.registerMetric(this.duration as unknown as Metric);
    this.probes = new Counter({ name: PROM.probes, help: 'Keepalive probes by result.', labelNames: [...SERVER_LABELS, 'result'], registers });
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames: SERVER_LABELS, registers });
    this.counters = {
      restarts: counter(PROM.restarts, 'Restarts of the MCP server (a connection that was up died and was reopened).'),
      reconnects: counter(PROM.reconnects, 'Connect attempts after the first one.'),
      violations: counter(PROM.violations, 'Replies against the MCP protocol (error or non-empty result to a ping, bad handshake).'),
      toolsChanged: counter(PROM.toolsChanged, 'Changes of the tool set from the accepted baseline (tool drift).'),
    };
  }

  probe(labels: ServerLabels, method: string, outcome: string, seconds: number | undefined, errorType: string | undefined): void {
    const result = { ...labels, result: outcome };
    this.probes.inc(result);
    this.remember(labels, this.probes, result, outcome);
    if (seconds === undefined) return;
    this.duration.observe(labels, method, errorType, seconds);
  }

  count(kind: CounterKind, labels: ServerLabels, by: number): void {
    this.counters[kind].inc(labels, by);
  }

  forget(labels: ServerLabels): void {
    this.duration.forget(labels);
    for (const counter of Object.values(this.counters)) counter.remove(labels);
    const key = labelsKey(labels);
    for (const [metric, sets] of this.extraLabelSets.get(key) ?? []) {
      for (const set of sets.values()) (metric as Counter).remove(set);
    }
    this.extraLabelSets.delete(key);
  }

  /** Negotiates on `Accept` as Prometheus does: OpenMetrics when asked for, the 0.0.4 text format otherwise. */
  render(accept: string | undefined): Promise<Exposition> {
    const openMetrics = accept?.includes('application/openmetrics-text') ?? false;
    const next = this.rendering.then(async () => {
      this.registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
      if (!openMetrics) {
        // prom-client strips `_total` from a counter's name in place when it renders OpenMetrics (which appends it to
        // the samples); the text format needs it back.
        for (const name of COUNTER_NAMES) {
          const metric = this.registry.getSingleMetric(name);
          if (metric) (metric as unknown as { name: string }).name = name;
        }
      }
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    });
    this.rendering = next.catch(() => undefined);
    return next;
  }

  private remember(labels: ServerLabels, metric: Metric, set: Labels, extra: string): void {
    const key = labelsKey(labels);
    let byMetric = this.extraLabelSets.get(key);
    if (!byMetric) this.extraLabelSets.set(key, (byMetric = new Map()));
    let sets = byMetric.get(metric);
    if (!sets) byMetric.set(metric, (sets = new Map()));
    if (!sets.has(extra)) sets.set(extra, set);
  }
}
