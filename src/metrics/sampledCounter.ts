// A counter per server and one extra label (the probes by result), kept by us rather than by prom-client's Counter:
// it changes at every probe, so it is written at every scrape, and prom-client formatted it a line at a time from
// label objects (flattening, escaping, a template per line). Here each series' line prefix is encoded once.
// Series are listed in the order they were first counted across all servers, as prom-client's Counter lists them,
// so get() hands Registry#metrics() the same values in the same order (the reference, exposition.test.ts).

import type { ByteWriter } from './byteWriter';
import { encode, SampledMetric, type Labels, type SampleValue } from './sampledMetrics';
import { escapeText, linePrefix } from './sampledText';
import { labelsKey, type ServerLabels } from './series';

interface Series {
  readonly labels: Labels;
  readonly prefix: Buffer;
  value: number;
}

export class SampledCounter extends SampledMetric {
  readonly type = 'counter';
  /** Every series by server key and extra label value, in the order first counted. */
  private readonly series = new Map<string, Series>();
  /** The series keys of each server, so forgetting a server removes them exactly. */
  private readonly byServer = new Map<string, Set<string>>();
  /** The sample name: the registered one, with `_total`, in both formats (the family name changes, not this). */
  private readonly lineName: string;
  private changes = 0;

  constructor(
    name: string,
    help: string,
    private readonly extraLabel: string,
  ) {
    super(name, help);
    this.lineName = escapeText(name);
  }

  inc(server: ServerLabels, extra: string, by = 1): void {
    const serverKey = labelsKey(server);
    const key = `${serverKey}\u0000${extra}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = Object.freeze({ ...server, [this.extraLabel]: extra });
      series = { labels, prefix: encode(linePrefix(this.lineName, labels)), value: 0 };
      this.series.set(key, series);
      let keys = this.byServer.get(serverKey);
      if (!keys) this.byServer.set(serverKey, (keys = new Set()));
      keys.add(key);
    }
    series.value += by;
    this.changes += 1;
  }

  forget(server: ServerLabels): void {
    const serverKey = labelsKey(server);
    const keys = this.byServer.get(serverKey);
    if (!keys) return;
    for (const key of keys) this.series.delete(key);
    this.byServer.delete(serverKey);
    this.changes += 1;
  }

  revision(): number {
    return this.changes;
  }

  protected values(): SampleValue[] {
    return [...this.series.values()].map(({ labels, value }) => ({ sharedLabels: labels, value }));
  }

  protected write(out: ByteWriter): void {
    for (const { prefix, value } of this.series.values()) {
      out.newline();
      out.bytes(prefix);
      out.value(value);
    }
  }
}
