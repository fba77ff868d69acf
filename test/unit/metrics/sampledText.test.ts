// Differential test of sampledText.ts: our sampled metrics write their text themselves at every scrape, and it must be
// byte for byte what prom-client's Registry writes from the same values (get()), for any label value, help text and
// number, in the text format and in OpenMetrics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Counter, Registry, type Metric, type RegistryContentType } from 'prom-client';
import { SampledCounter } from '../../../src/metrics/sampledCounter';
import { DurationHistogram, OneHotGauge, SampledGauge, type Labels, type SampleValue } from '../../../src/metrics/sampledMetrics';
import type { ServerLabels } from '../../../src/metrics/series';

const text = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.string({
    unit: fc.constantFrom('a', '"', '\\', '\n', '\r', '\t', 'é', '😀', '\u2028', '\ud800', ' ', '{', '}', ',', '=', '#'),
    maxLength: 8,
  }),
);
const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,6}$/);
const labelSet = fc.dictionary(labelName, text, { maxKeys: 5 }).map((labels) => Object.freeze({ ...labels }) as Labels);
const number = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -0,
    0,
    5e-324,
    1e21,
    1e-7,
    0.1 + 0.2,
    Number.MAX_SAFE_INTEGER + 2,
  ),
);
const serverLabels = fc
  .record({ server: text, transport: text, source_file: text, era: text })
  .map((labels) => Object.freeze(labels) as ServerLabels);

async function reference(metric: SampledGauge | OneHotGauge | DurationHistogram, name: string, openMetrics: boolean): Promise<string> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
  registry.registerMetric(metric as unknown as Metric);
  // What goes on the wire: prom-client's string UTF-8 encoded (a lone surrogate becomes U+FFFD), read back.
  return Buffer.from(await registry.getSingleMetricAsString(name), 'utf8').toString('utf8');
}

void describe('sampledText: our metrics write what prom-client writes', () => {
  void it('gauges: any label set, value, name suffix and help text', async () => {
    const value = fc.record(
      { sharedLabels: labelSet, value: number, metricName: fc.option(fc.constantFrom('g_a', 'g_b'), { nil: undefined }) },
      { requiredKeys: ['sharedLabels', 'value'] },
    );
    await fc.assert(
      fc.asyncProperty(text, fc.array(value, { maxLength: 12 }), fc.boolean(), async (help, values, openMetrics) => {
        // The same label objects scraped twice: the second text comes from the prefixes kept by identity.
        const gauge = new SampledGauge(
          'g',
          help,
          () => values as SampleValue[],
          () => 0,
        );
        for (let i = 0; i < 2; i++) assert.equal(gauge.bytes().toString('utf8'), await reference(gauge, 'g', openMetrics));
      }),
      { numRuns: 300 },
    );
  });

  void it('one-hot gauges: any label sets, options and current values', async () => {
    const options = fc.uniqueArray(text, { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(
        text,
        labelName,
        options,
        fc.array(fc.record({ labels: labelSet, pick: fc.nat(), other: text }), { maxLength: 6 }),
        fc.boolean(),
        async (help, label, values, samples, openMetrics) => {
          // The current value is one of the options, or (other) none of them: then every line is 0.
          const read = samples.map(({ labels, pick, other }) => ({
            labels,
            state: pick % 3 === 0 ? other : values[pick % values.length]!,
          }));
          const gauge = new OneHotGauge(
            'o',
            help,
            label,
            values,
            () => read,
            () => 0,
          );
          for (let i = 0; i < 2; i++) assert.equal(gauge.bytes().toString('utf8'), await reference(gauge, 'o', openMetrics));
        },
      ),
      { numRuns: 200 },
    );
  });

  void it('the duration histogram: any server labels, methods, error types, bounds, observations and removals', async () => {
    // Written after some steps only: between two outputs some series change and the others are copied from the last one.
    // Methods and error types repeat, so one series is observed again after it was written.
    const observation = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({
          server: fc.nat(),
          method: fc.oneof(fc.constantFrom('ping', 'tools/list'), text),
          errorType: fc.option(fc.oneof(fc.constant('timeout'), text), { nil: undefined }),
          seconds: number,
          scrape: fc.boolean(),
        }),
      },
      { weight: 1, arbitrary: fc.record({ forget: fc.nat() }) },
    );
    const bounds = fc
      .uniqueArray(fc.double({ min: 0, max: 1_000, noNaN: true }), { minLength: 1, maxLength: 6 })
      .map((list) => [...list].sort((a, b) => a - b));
    await fc.assert(
      fc.asyncProperty(
        text,
        bounds,
        fc.array(serverLabels, { minLength: 1, maxLength: 3 }),
        fc.array(observation, { maxLength: 30 }),
        fc.boolean(),
        async (help, les, servers, observations, openMetrics) => {
          const histogram = new DurationHistogram('h_seconds', help, les);
          for (const step of observations) {
            if ('forget' in step) {
              histogram.forget(servers[step.forget % servers.length]!);
            } else {
              histogram.observe(servers[step.server % servers.length]!, step.method, step.errorType, step.seconds);
              if (!step.scrape) continue;
            }
            assert.equal(histogram.bytes().toString('utf8'), await reference(histogram, 'h_seconds', openMetrics));
          }
          assert.equal(histogram.bytes().toString('utf8'), await reference(histogram, 'h_seconds', openMetrics));
        },
      ),
      { numRuns: 200 },
    );
  });

  void it("the counter by server and result: what prom-client's own Counter writes after the same counts and removals", async () => {
    const step = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({ server: fc.nat(), extra: text, by: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1e6, noNaN: true })) }),
      },
      { weight: 1, arbitrary: fc.record({ forget: fc.nat() }) },
    );
    await fc.assert(
      fc.asyncProperty(
        text.filter((help) => help !== ''),
        fc.array(serverLabels, { minLength: 1, maxLength: 3 }),
        fc.array(step, { maxLength: 25 }),
        fc.boolean(),
        async (help, servers, steps, openMetrics) => {
          const ours = new SampledCounter('c_total', help, 'result');
          const registry = new Registry<RegistryContentType>();
          registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
          const theirs = new Counter({
            name: 'c_total',
            help,
            labelNames: ['server', 'transport', 'source_file', 'era', 'result'],
            registers: [registry],
          });
          const counted = new Map<ServerLabels, Set<string>>();
          const compare = async () => {
            // As the exposition does for any counter: OpenMetrics names the family without `_total`.
            const family = openMetrics ? 'c' : 'c_total';
            (ours as unknown as { name: string }).name = family;
            (theirs as unknown as { name: string }).name = family;
            assert.equal(
              ours.bytes().toString('utf8'),
              Buffer.from(await registry.getSingleMetricAsString('c_total'), 'utf8').toString('utf8'),
            );
          };
          for (const s of steps) {
            const server = servers[('server' in s ? s.server : s.forget) % servers.length]!;
            if ('forget' in s) {
              ours.forget(server);
              for (const result of counted.get(server) ?? []) theirs.remove({ ...server, result });
              counted.delete(server);
            } else {
              ours.inc(server, s.extra, s.by);
              theirs.inc({ ...server, result: s.extra }, s.by);
              counted.set(server, (counted.get(server) ?? new Set()).add(s.extra));
            }
            await compare();
          }
          await compare();
        },
      ),
      { numRuns: 200 },
    );
  });
});
