// The /metrics body as prom-client's Registry#metrics() writes it, with each metric's text reused while the metric
// has not changed since it was last written. Most series of a fleet (up, the one-hot state, flapping, restarts,
// reconnects) change rarely, yet formatting them was most of the CPU of a scrape at a thousand servers. Every byte is
// still prom-client's: a changed metric goes through Registry#getSingleMetricAsString, and only the joining of the
// metrics is done here. test/unit/metrics/exposition.test.ts checks the whole body against Registry#metrics() after
// random sequences of events, in both formats.

import { Registry, type Metric, type RegistryContentType } from 'prom-client';

export interface Published {
  /** The name the metric was registered under (a counter's with `_total`). */
  readonly name: string;
  readonly metric: Metric;
  /** Changes whenever the metric's values do; the cached text is reused while it stays the same. */
  revision(): number;
  /** Writes the metric as Registry#getSingleMetricAsString would, faster (sampledText.ts); absent: prom-client writes it. */
  text?(): string;
}

interface Written {
  readonly revision: number;
  readonly text: string;
}

export class CachedExposition {
  private readonly written = { text: new Map<Metric, Written>(), openMetrics: new Map<Metric, Written>() };

  /** `published` lists every metric of `registry` in the order they were registered, as metrics() visits them. */
  constructor(
    private readonly registry: Registry<RegistryContentType>,
    private readonly published: readonly Published[],
  ) {}

  async render(openMetrics: boolean): Promise<string> {
    this.registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
    const written = openMetrics ? this.written.openMetrics : this.written.text;
    const parts: string[] = [];
    for (const { name, metric, revision, text: write } of this.published) {
      const now = revision();
      const last = written.get(metric);
      if (last?.revision === now) {
        parts.push(last.text);
        continue;
      }
      if (isCounter(metric)) {
        // As metrics() does: OpenMetrics appends `_total` to a counter's samples itself, so the family is named
        // without it; the text format keeps the registered name.
        (metric as unknown as { name: string }).name = openMetrics ? name.replace(/_total$/, '') : name;
      }
      const text = write ? write() : await this.registry.getSingleMetricAsString(name);
      written.set(metric, { revision: now, text });
      parts.push(text);
    }
    return openMetrics ? `${parts.join('\n')}\n# EOF\n` : `${parts.join('\n\n')}\n`;
  }
}

function isCounter(metric: Metric): boolean {
  return (metric as unknown as { type?: string }).type === 'counter';
}
