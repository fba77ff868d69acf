// Differential test of the /metrics body: after random sequences of monitor events, what a scrape serves (each metric's
// text reused while unchanged, our sampled metrics written by sampledText.ts) must equal, byte for byte, what
// prom-client's own Registry#metrics() writes from the same state, in the text format and in OpenMetrics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ProbeMethod, ProbeOutcome, ServerConfig, ServerState, ServerStatus } from '../../../src/core/model';
import type { MonitorEvent, MonitorRegistry } from '../../../src/core/monitorTypes';
import { PromSink } from '../../../src/metrics/promSink';
import { EMPTY_PROBE_STATS } from '../../../src/core/monitor/probeStats';
import { ALL_STATES } from '../../../src/metrics/series';
import { HealthTracker, lateSource } from '../../../src/metrics/tracker';
import { bodyText } from '../../helpers/exposition';
import { serverConfig } from '../../helpers/serverConfig';

const OPEN_METRICS = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5';

function status(
  cfg: ServerConfig,
  state: ServerState,
  era: string | null,
  restarts: number,
  flapping: boolean,
  slow = false,
): ServerStatus {
  return {
    slow,
    config: cfg,
    state,
    era: era as ServerStatus['era'],
    protocolVersion: null,
    serverInfo: null,
    lastRttMs: null,
    lastError: null,
    lastProbeAt: null,
    lastStateChangeAt: null,
    consecutiveFailures: 0,
    restarts,
    flapping,
    nonConformant: false,
    stats: EMPTY_PROBE_STATS,
    stderrTail: '',
    pid: null,
  };
}

/** A label value with everything the exposition escapes or must not: quotes, backslashes, newlines, non-ASCII. */
const labelText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é', '😀', '\ud800', ' ', '{', '}', ',', '='), maxLength: 8 }),
);

const seconds = fc.oneof(
  fc.double({ min: 0, max: 1_000, noNaN: true }),
  fc.constantFrom(0, 0.01, 0.010000001, 300, 300.5, 1e-7, 5e-324, 1e21),
);

const event = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('probe' as const),
      server: fc.nat(),
      method: fc.constantFrom<ProbeMethod>('ping', 'server/discover', 'tools/list'),
      outcome: fc.constantFrom<ProbeOutcome>('ok', 'timeout', 'error-reply', 'non-empty', 'closed', 'auth', 'failed'),
      rtt: fc.option(seconds, { nil: undefined }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('state' as const),
      server: fc.nat(),
      to: fc.constantFrom(...ALL_STATES),
      restarts: fc.nat({ max: 3 }),
      flapping: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('era' as const), server: fc.nat(), era: fc.constantFrom('handshake', 'modern') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reconnecting' as const), server: fc.nat() }) },
  // The slow and flapping flags change without a state change (mcp_health_healthy follows them).
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('flags' as const), server: fc.nat(), flapping: fc.boolean(), slow: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tools' as const), server: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), server: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), name: labelText }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('scrape' as const), openMetrics: fc.boolean() }) },
);

class Fleet {
  readonly statuses = new Map<string, ServerStatus>();
  private listener: ((event: MonitorEvent) => void) | undefined;
  private added = 0;
  readonly registry = {
    list: () => [...this.statuses.values()],
    onEvent: (listener: (event: MonitorEvent) => void) => {
      this.listener = listener;
      return () => (this.listener = undefined);
    },
  } as unknown as MonitorRegistry;

  constructor(names: readonly string[], file: string) {
    for (const name of names) this.add(name, file);
  }

  add(name: string, file: string): void {
    // Two entries of one name in one file get the `#2` suffix discovery gives them.
    const cfg = serverConfig(`${name}#${this.added++}`, { name, source: { file } });
    this.statuses.set(cfg.id, status(cfg, 'idle', null, 0, false));
  }

  pick(index: number): ServerStatus | undefined {
    const all = [...this.statuses.values()];
    return all.length === 0 ? undefined : all[index % all.length];
  }

  emit(event: MonitorEvent): void {
    this.listener?.(event);
  }
}

void describe('exposition: what a scrape serves equals prom-client Registry#metrics()', () => {
  void it('after random event sequences, in both formats, with every metric reused while unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(labelText, { minLength: 1, maxLength: 4 }),
        labelText,
        fc.array(event, { maxLength: 40 }),
        async (names, file, events) => {
          const fleet = new Fleet(names, `/w/${file}/mcp.json`);
          let now = 1_700_000_000_000;
          const sink = new PromSink(
            lateSource(() => tracker),
            { version: '1.2.3', frontEnd: 'cli' },
          );
          const tracker: HealthTracker = new HealthTracker(fleet.registry, [sink], { wall: () => (now += 1_234), timeoutMs: 2_000 });
          const compare = async (openMetrics: boolean) => {
            const served = await sink.render(openMetrics ? OPEN_METRICS : undefined);
            assert.equal(served.body.length, Buffer.concat(served.body.parts).length);
            // Compared as sent: prom-client's string UTF-8 encoded (a lone surrogate becomes U+FFFD), read back.
            assert.equal(bodyText(served), Buffer.from(await sink.referenceBody(openMetrics), 'utf8').toString('utf8'));
          };
          for (const step of events) {
            const target = 'server' in step ? fleet.pick(step.server) : undefined;
            switch (step.kind) {
              case 'scrape':
                await compare(step.openMetrics);
                break;
              case 'probe':
                if (target)
                  fleet.emit({
                    type: 'probe',
                    id: target.config.id,
                    result: { method: step.method, outcome: step.outcome, ...(step.rtt === undefined ? {} : { rttMs: step.rtt * 1000 }) },
                    status: target,
                  });
                break;
              case 'state':
                if (target) {
                  const next = status(target.config, step.to, target.era, target.restarts + step.restarts, step.flapping, target.slow);
                  fleet.statuses.set(target.config.id, next);
                  fleet.emit({ type: 'state', id: target.config.id, from: target.state, to: step.to, reason: '', status: next });
                }
                break;
              case 'era':
                if (target) {
                  const next = status(target.config, target.state, step.era, target.restarts, target.flapping, target.slow);
                  fleet.statuses.set(target.config.id, next);
                  fleet.emit({ type: 'state', id: target.config.id, from: target.state, to: target.state, reason: '', status: next });
                }
                break;
              case 'flags':
                if (target) {
                  const next = status(target.config, target.state, target.era, target.restarts, step.flapping, step.slow);
                  fleet.statuses.set(target.config.id, next);
                  fleet.emit({ type: 'status', id: target.config.id, status: next });
                }
                break;
              case 'reconnecting':
                if (target) fleet.emit({ type: 'status', id: target.config.id, status: target, reconnecting: true });
                break;
              case 'tools':
                if (target) tracker.toolsChanged(target.config.id);
                break;
              case 'remove':
                if (target) {
                  fleet.statuses.delete(target.config.id);
                  fleet.emit({ type: 'servers' });
                }
                break;
              case 'add':
                fleet.add(step.name, `/w/${file}/mcp.json`);
                fleet.emit({ type: 'servers' });
                break;
            }
          }
          await compare(false);
          await compare(true);
          tracker.dispose();
        },
      ),
      { numRuns: 150 },
    );
  });
});
