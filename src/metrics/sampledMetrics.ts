// Metrics whose values we keep ourselves. Every line's complete label set is one long-lived frozen object, so its
// text (`name{labels} `) is formatted and UTF-8 encoded once, not at every scrape. A scrape writes them through
// bytes() (sampledText.ts, byteWriter.ts); get() hands the same values to prom-client's Registry, whose output is the
// reference bytes() is tested against (sampledText.test.ts, exposition.test.ts) and what Registry#metrics() serves.

import { ByteWriter } from './byteWriter';
import { escapeText, header, linePrefix, type Labels } from './sampledText';
import { labelsKey, type ServerLabels } from './series';

export type { Labels } from './sampledText';

/** One line; prom-client reads the absent `labels` as none, and formats `sharedLabels` once per object. */
export interface SampleValue {
  readonly sharedLabels: Labels;
  readonly value: number;
  readonly metricName?: string;
}

/** The shape prom-client's Registry reads from a metric (its `get()` and `name`/`type`). */
export abstract class SampledMetric {
  readonly aggregator = 'sum';
  abstract readonly type: 'gauge' | 'histogram' | 'counter';
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  protected abstract values(): SampleValue[];
  /** Changes whenever values() would; equal revisions promise equal values (the exposition cache relies on it). */
  abstract revision(): number;
  /** What prom-client's Registry formats: the reference for bytes() (sampledText.test.ts). */
  get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() };
  }
  /** The metric as Registry#getSingleMetricAsString writes it, UTF-8 encoded, without going through it. */
  bytes(): Buffer {
    const out = new ByteWriter(this.lastSize);
    // A counter's family is named without `_total` in OpenMetrics (the exposition renames it in place, as metrics() does).
    let head = this.headers.get(this.name);
    if (!head) this.headers.set(this.name, (head = encode(header(this.name, this.help, this.type))));
    out.bytes(head);
    this.write(out);
    const bytes = out.done();
    this.lastSize = bytes.length + 256;
    return bytes;
  }
  /** Each value's line, every one after a newline (the header is written). */
  protected abstract write(out: ByteWriter): void;
  reset(): void {}
  private readonly headers = new Map<string, Buffer>();
  /** The size of the last output: the next one is about the same, so its buffer is allocated once. */
  private lastSize = 4096;
}

export function encode(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** A gauge read from the tracker's samples at scrape time: it can never disagree with the registry's last event. */
export class SampledGauge extends SampledMetric {
  readonly type = 'gauge';
  constructor(
    name: string,
    help: string,
    private readonly read: () => SampleValue[],
    readonly revision: () => number,
  ) {
    super(name, help);
  }
  /** The line prefix of each label set, kept as long as the label object is (the tracker keeps them per server). */
  private readonly prefixes = new WeakMap<Labels, Buffer>();
  protected values(): SampleValue[] {
    return this.read();
  }
  protected write(out: ByteWriter): void {
    for (const { sharedLabels, value, metricName } of this.values()) {
      let prefix = metricName === undefined ? this.prefixes.get(sharedLabels) : undefined;
      if (prefix === undefined) {
        prefix = encode(linePrefix(metricName ?? escapeText(this.name), sharedLabels));
        if (metricName === undefined) this.prefixes.set(sharedLabels, prefix);
      }
      out.newline();
      out.bytes(prefix);
      out.value(value);
    }
  }
}

/**
 * One gauge line per label set and option, 1 for the sample's current option and 0 for the others (the state
 * one-hot). Its lines' prefixes are kept per label set, one lookup per sample rather than one per line: after any
 * state change anywhere, the whole metric is written again.
 */
export class OneHotGauge extends SampledMetric {
  readonly type = 'gauge';
  private readonly labelSets = new WeakMap<Labels, readonly Labels[]>();
  private readonly prefixes = new WeakMap<Labels, readonly Buffer[]>();

  constructor(
    name: string,
    help: string,
    private readonly label: string,
    private readonly options: readonly string[],
    private readonly read: () => readonly { readonly labels: Labels; readonly state: string }[],
    readonly revision: () => number,
  ) {
    super(name, help);
  }

  protected values(): SampleValue[] {
    return this.read().flatMap(({ labels, state }) =>
      this.labelSetsOf(labels).map((sharedLabels, index) => ({ sharedLabels, value: state === this.options[index] ? 1 : 0 })),
    );
  }

  protected write(out: ByteWriter): void {
    for (const { labels, state } of this.read()) {
      let prefixes = this.prefixes.get(labels);
      if (!prefixes) {
        const name = escapeText(this.name);
        this.prefixes.set(labels, (prefixes = this.labelSetsOf(labels).map((set) => encode(linePrefix(name, set)))));
      }
      for (let i = 0; i < prefixes.length; i++) {
        out.newline();
        out.bytes(prefixes[i]!);
        out.value(state === this.options[i] ? 1 : 0);
      }
    }
  }

  /** One frozen label object per label set and option, kept as long as the label set is. */
  private labelSetsOf(labels: Labels): readonly Labels[] {
    let sets = this.labelSets.get(labels);
    if (!sets) this.labelSets.set(labels, (sets = this.options.map((option) => Object.freeze({ ...labels, [this.label]: option }))));
    return sets;
  }
}

interface Cell {
  /** Server labels plus mcp_method_name and error_type: the labels of the _sum and _count lines. */
  readonly labels: Labels;
  /** The same plus `le`, one per bucket line. */
  readonly bucketLabels: readonly Labels[];
  /** The text of each line before its value: the buckets', then _sum's and _count's. */
  readonly prefixes: readonly Buffer[];
  /** Per-bucket counts, not cumulative; the last slot is +Inf. */
  readonly counts: number[];
  sum: number;
  count: number;
  /** Where the cell's lines (each after its newline) are in the histogram's last output, while `cached`. */
  start: number;
  end: number;
  /** No observation since the last output: its lines there are still right. */
  cached: boolean;
}

/** A histogram with fixed upper bounds, one series per server, method and error type. */
export class DurationHistogram extends SampledMetric {
  readonly type = 'histogram';
  private readonly cells = new Map<string, Map<string, Cell>>();
  private readonly les: readonly string[];
  private changes = 0;
  /** The last output: a series not observed since copies its lines from there instead of writing them again. */
  private previous: Buffer | undefined;

  constructor(
    name: string,
    help: string,
    private readonly bounds: readonly number[],
  ) {
    super(name, help);
    this.les = [...bounds.map(String), '+Inf'];
  }

  observe(server: ServerLabels, method: string, errorType: string | undefined, seconds: number): void {
    const key = labelsKey(server);
    let byServer = this.cells.get(key);
    if (!byServer) this.cells.set(key, (byServer = new Map()));
    const cellKey = errorType === undefined ? method : `${method}\u0000${errorType}`;
    let cell = byServer.get(cellKey);
    if (!cell) {
      const labels = Object.freeze({ ...server, mcp_method_name: method, ...(errorType !== undefined ? { error_type: errorType } : {}) });
      const bucketLabels = this.les.map((le) => Object.freeze({ ...labels, le }));
      const prefixes = [
        ...bucketLabels.map((set) => linePrefix(`${this.name}_bucket`, set)),
        linePrefix(`${this.name}_sum`, labels),
        linePrefix(`${this.name}_count`, labels),
      ].map(encode);
      cell = {
        labels,
        bucketLabels,
        prefixes,
        counts: new Array<number>(this.bounds.length + 1).fill(0),
        sum: 0,
        count: 0,
        start: 0,
        end: 0,
        cached: false,
      };
      byServer.set(cellKey, cell);
    }
    let index = this.bounds.findIndex((bound) => seconds <= bound);
    if (index < 0) index = this.bounds.length;
    cell.counts[index]! += 1;
    cell.sum += seconds;
    cell.count += 1;
    cell.cached = false;
    this.changes += 1;
  }

  forget(server: ServerLabels): void {
    if (this.cells.delete(labelsKey(server))) this.changes += 1;
  }

  revision(): number {
    return this.changes;
  }

  protected values(): SampleValue[] {
    const values: SampleValue[] = [];
    const bucketName = `${this.name}_bucket`;
    const sumName = `${this.name}_sum`;
    const countName = `${this.name}_count`;
    for (const byServer of this.cells.values()) {
      for (const cell of byServer.values()) {
        let cumulative = 0;
        for (let i = 0; i < cell.counts.length; i++) {
          cumulative += cell.counts[i]!;
          values.push({ metricName: bucketName, sharedLabels: cell.bucketLabels[i]!, value: cumulative });
        }
        values.push({ metricName: sumName, sharedLabels: cell.labels, value: cell.sum });
        values.push({ metricName: countName, sharedLabels: cell.labels, value: cell.count });
      }
    }
    return values;
  }

  override bytes(): Buffer {
    // Every cell's range was set against this output by write().
    return (this.previous = super.bytes());
  }

  /**
   * A probe round changes every series it probed, but with a scrape every 15 s and a probe every 20 s about a
   * quarter of the servers were not probed since the last scrape: their 17 lines are copied as they were.
   */
  protected write(out: ByteWriter): void {
    const previous = this.previous;
    for (const byServer of this.cells.values()) {
      for (const cell of byServer.values()) {
        const start = out.length;
        if (cell.cached && previous) {
          out.bytes(previous.subarray(cell.start, cell.end));
        } else {
          writeCell(out, cell);
        }
        cell.start = start;
        cell.end = out.length;
        cell.cached = true;
      }
    }
  }
}

function writeCell(out: ByteWriter, { prefixes, counts, sum, count }: Cell): void {
  let cumulative = 0;
  for (let i = 0; i < counts.length; i++) {
    cumulative += counts[i]!;
    out.newline();
    out.bytes(prefixes[i]!);
    out.value(cumulative);
  }
  out.newline();
  out.bytes(prefixes[counts.length]!);
  out.value(sum);
  out.newline();
  out.bytes(prefixes[counts.length + 1]!);
  out.value(count);
}
