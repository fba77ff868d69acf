// The /metrics body as prom-client's Registry#metrics() writes it, with each metric's text reused while the metric
// has not changed since it was last written. Most series of a fleet (up, the one-hot state, flapping, restarts,
// reconnects) change rarely, yet formatting them was most of the CPU of a scrape at a thousand servers. Every byte is
// still prom-client's: a changed metric goes through Registry#getSingleMetricAsString or our own writer proven equal
// to it (sampledText.test.ts), and only the joining of the metrics is done here. The body is a list of UTF-8 parts,
// each metric's encoded once when it changes and sent as it is: no join of megabytes of text and no encoding of the
// whole body at every scrape. test/unit/metrics/exposition.test.ts checks the whole body against Registry#metrics()
// after random sequences of events, in both formats.

import { Registry, type Metric, type RegistryContentType } from 'prom-client';

export interface Published {
  /** The name the metric was registered under (a counter's with `_total`). */
  readonly name: string;
  readonly metric: Metric;
  /** Changes whenever the metric's values do; the cached text is reused while it stays the same. */
  revision(): number;
  /** Writes the metric as Registry#getSingleMetricAsString would, UTF-8 encoded, faster; absent: prom-client writes it. */
  bytes?(): Uint8Array;
}

interface Written {
  readonly revision: number;
  readonly bytes: Uint8Array;
}

/** The body in parts, sent one after the other; `length` is their total size in bytes. */
export interface Body {
  readonly parts: readonly Uint8Array[];
  readonly length: number;
}

const SEPARATOR = { text: Buffer.from('\n\n'), openMetrics: Buffer.from('\n') };
const END = { text: Buffer.from('\n'), openMetrics: Buffer.from('\n# EOF\n') };

export class CachedExposition {
  private readonly written = { text: new Map<Metric, Written>(), openMetrics: new Map<Metric, Written>() };

  /** `published` lists every metric of `registry` in the order they were registered, as metrics() visits them. */
  constructor(
    private readonly registry: Registry<RegistryContentType>,
    private readonly published: readonly Published[],
  ) {}

  async render(openMetrics: boolean): Promise<Body> {
    this.registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
    const format = openMetrics ? 'openMetrics' : 'text';
    const written = this.written[format];
    const parts: Uint8Array[] = [];
    let length = 0;
    const add = (part: Uint8Array) => {
      parts.push(part);
      length += part.length;
    };
    for (const { name, metric, revision, bytes: write } of this.published) {
      if (parts.length > 0) add(SEPARATOR[format]);
      const now = revision();
      const last = written.get(metric);
      if (last?.revision === now) {
        add(last.bytes);
        continue;
      }
      if (isCounter(metric)) {
        // As metrics() does: OpenMetrics appends `_total` to a counter's samples itself, so the family is named
        // without it; the text format keeps the registered name.
        (metric as unknown as { name: string }).name = openMetrics ? name.replace(/_total$/, '') : name;
      }
      const bytes = write ? write() : Buffer.from(await this.registry.getSingleMetricAsString(name), 'utf8');
      written.set(metric, { revision: now, bytes });
      add(bytes);
    }
    add(END[format]);
    return { parts, length };
  }
}

function isCounter(metric: Metric): boolean {
  return (metric as unknown as { type?: string }).type === 'counter';
}
