// 10. `mcp-health serve`: what /probe adds over check's own probe, and how many probes a core serves. The reference
// is measured in the same process and run: one server probed the way `check` probes it (a one-server registry:
// connect, probe, list, dispose), interleaved round by round with GET /probe to an in-process exporter probing the
// same local peer (a separate process, so its CPU is not counted). Rate: concurrent /probe clients for a window,
// successful probes over the process CPU they took (so per core), against check-path probes over their CPU.
import { systemClock } from '../../src/core/clock';
import { defaultInventorySettings } from '../../src/core/monitorTypes';
import { DEFAULT_SERVE_CONFIG } from '../../src/metrics/probe/modules';
import { serveProbes } from '../../src/metrics/probe/serveHttp';
import { httpServer } from '../lib/configs';
import type { BenchContext } from '../lib/context';
import { clientInfo, type Ours } from '../lib/ours';
import { startHttpPeer, type HttpPeer } from '../lib/peers';

const CONCURRENCY = 8;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

export async function serveProbeCost(context: BenchContext, ours: Ours): Promise<void> {
  const rounds = context.quick ? 15 : 40;
  const windowMs = context.quick ? 3_000 : 8_000;
  let peer: HttpPeer | undefined;
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  const exporter = await serveProbes({
    listen: { host: '127.0.0.1', port: 0 },
    config: { ...DEFAULT_SERVE_CONFIG, maxConcurrent: 64 },
    connectors: new Map([['default', ours.createNodeConnector({ logger: ours.silentLogger, clientInfo })]]),
    clock: systemClock,
    version: '0.0.0-bench',
  });
  try {
    peer = await startHttpPeer(0, 15_000, 5);
    const target = peer.url;
    const probeUrl = `http://127.0.0.1:${exporter.address.port}/probe?target=${encodeURIComponent(target)}`;
    const checkProbe = async (n: number) => {
      const registry = ours.createRegistry({
        connector: { connect: (server, options) => connector.connect(server, options) },
        clock: ours.systemClock,
        logger: ours.silentLogger,
        settings: { ...ours.defaultMonitorSettings, inventory: defaultInventorySettings },
      });
      const server = httpServer(`check-${n}`, target);
      registry.setServers([server], []);
      await registry.pingNow();
      await registry.settleInventory();
      const ok = registry.get(server.id)?.state === 'up';
      await registry.dispose();
      if (!ok) throw new Error('the check-path probe failed');
    };
    const serveProbe = async () => {
      const body = await (await fetch(probeUrl)).text();
      if (!/^mcp_health_probe_success 1$/m.test(body)) throw new Error(`/probe failed:\n${body}`);
    };
    // Warm-up of both paths (JIT, sockets), unmeasured.
    for (let i = 0; i < 3; i++) {
      await checkProbe(i);
      await serveProbe();
    }
    const check: number[] = [];
    const serve: number[] = [];
    for (let round = 0; round < rounds; round++) {
      let started = performance.now();
      await checkProbe(round);
      check.push(performance.now() - started);
      started = performance.now();
      await serveProbe();
      serve.push(performance.now() - started);
    }
    const rate = async (one: (n: number) => Promise<void>) => {
      const cpu = process.cpuUsage();
      const until = performance.now() + windowMs;
      let done = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < until) {
            await one(done);
            done += 1;
          }
        }),
      );
      return { done, perCpuSecond: done / (cpuMs(cpu) / 1000) };
    };
    const checkRate = await rate(checkProbe);
    const serveRate = await rate(() => serveProbe());
    context.raw.serve = { rounds, checkMs: check, serveMs: serve, windowMs, concurrency: CONCURRENCY, checkRate, serveRate };
    context.figures.push({
      section: 'serve',
      name: 'GET /probe latency p50 (local Streamable HTTP peer, 5 tools listed)',
      value: median(serve),
      unit: 'ms',
      reference: { name: "check's own probe of the same peer (one-server registry), interleaved", value: median(check) },
      target: null,
      note: `${rounds} rounds each; /probe adds the HTTP hop, the allow-list and the exposition`,
    });
    context.figures.push({
      section: 'serve',
      name: `/probe throughput per core (${CONCURRENCY} concurrent scrapers, ${windowMs / 1000} s, process CPU incl. the scrapers)`,
      value: serveRate.perCpuSecond,
      unit: 'probes/CPU-s',
      reference: { name: 'check-path probes per CPU-second, same concurrency and window', value: checkRate.perCpuSecond },
      target: null,
      note: `${serveRate.done} /probe and ${checkRate.done} check-path probes completed`,
    });
  } finally {
    await exporter.close();
    connector.dispose?.();
    await peer?.kill();
  }
}
