// The Prometheus side: prom-client metrics fed by the tracker, exposed in the text format and in OpenMetrics.

import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
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

type Labels = Record<string, string>;

const SERVER_LABELS = [...SERVER_LABEL_NAMES];

export class PromSink implements MetricsSink {
  private readonly text = new Registry();
  private readonly openMetrics = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>();
  private readonly duration: Histogram;
  private readonly probes: Counter;
  private readonly counters: Record<CounterKind, Counter>;
  /** Label sets with extra labels (method, result) per server, so forgetting a server can remove them exactly. */
  private readonly extraLabelSets = new Map<string, Map<Metric, Map<string, Labels>>>();

  constructor(samples: () => readonly ServerSample[], build: BuildInfo) {
    this.openMetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    const registers = [this.text, this.openMetrics];
    // Gauges are read from the tracker at scrape time: they can never disagree with the registry's last event.
    new Gauge({
      name: PROM.up, help: 'Whether the MCP server answers its keepalive probes (1 up, 0 otherwise).', labelNames: SERVER_LABELS, registers,
      collect() {
        this.reset();
        for (const sample of samples()) this.set(sample.labels, sample.state === 'up' ? 1 : 0);
      },
    });
    new Gauge({
      name: PROM.state, help: 'The monitor state of the MCP server, one-hot over every state.', labelNames: [...SERVER_LABELS, 'state'], registers,
      collect() {
        this.reset();
        for (const sample of samples()) {
          for (const state of ALL_STATES) this.set({ ...sample.labels, state }, sample.state === state ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: PROM.flapping, help: 'Whether the MCP server restarts too often (1 flapping).', labelNames: SERVER_LABELS, registers,
      collect() {
        this.reset();
        for (const sample of samples()) this.set(sample.labels, sample.flapping ? 1 : 0);
      },
    });
    new Gauge({
      name: PROM.lastProbe, help: 'When the last keepalive probe of the MCP server settled, in seconds since the epoch.', labelNames: SERVER_LABELS, registers,
      collect() {
        this.reset();
        for (const sample of samples()) if (sample.lastProbeSeconds !== null) this.set(sample.labels, sample.lastProbeSeconds);
      },
    });
    new Gauge({ name: PROM.buildInfo, help: 'mcp-health build information; always 1.', labelNames: ['version', 'nodejs_version', 'front_end'], registers })
      .set({ version: build.version, nodejs_version: process.version, front_end: build.frontEnd }, 1);
    this.duration = new Histogram({
      name: PROM.duration,
      help: 'Duration of MCP probe requests as seen by mcp-health (semantic convention mcp.client.operation.duration).',
      labelNames: [...SERVER_LABELS, 'mcp_method_name', 'error_type'],
      buckets: [...MCP_DURATION_BUCKETS],
      registers,
    });
    this.probes = new Counter({ name: PROM.probes, help: 'Keepalive probes by result.', labelNames: [...SERVER_LABELS, 'result'], registers });
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames: SERVER_LABELS, registers });
    this.counters = {
      restarts: counter(PROM.restarts, 'Restarts of the MCP server (a connection that was up died and was reopened).'),
      reconnects: counter(PROM.reconnects, 'Connect attempts after the first one.'),
      violations: counter(PROM.violations, 'Replies against the MCP protocol (error or non-empty result to a ping, bad handshake).'),
      toolsChanged: counter(PROM.toolsChanged, 'notifications/tools/list_changed received from the MCP server.'),
    };
  }

  probe(labels: ServerLabels, method: string, outcome: string, seconds: number | undefined, errorType: string | undefined): void {
    const result = { ...labels, result: outcome };
    this.probes.inc(result);
    this.remember(labels, this.probes, result, outcome);
    if (seconds === undefined) return;
    const durationLabels: Labels = { ...labels, mcp_method_name: method, ...(errorType ? { error_type: errorType } : {}) };
    this.duration.observe(durationLabels, seconds);
    this.remember(labels, this.duration, durationLabels, `${method} ${errorType ?? ''}`);
  }

  count(kind: CounterKind, labels: ServerLabels, by: number): void {
    this.counters[kind].inc(labels, by);
  }

  forget(labels: ServerLabels): void {
    for (const counter of Object.values(this.counters)) counter.remove(labels);
    const key = labelsKey(labels);
    for (const [metric, sets] of this.extraLabelSets.get(key) ?? []) {
      for (const set of sets.values()) (metric as Counter).remove(set);
    }
    this.extraLabelSets.delete(key);
  }

  /** Negotiates on `Accept` as Prometheus does: OpenMetrics when asked for, the 0.0.4 text format otherwise. */
  async render(accept: string | undefined): Promise<Exposition> {
    const registry = accept?.includes('application/openmetrics-text') ? this.openMetrics : this.text;
    return { contentType: registry.contentType, body: await registry.metrics() };
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
