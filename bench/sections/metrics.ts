// 5. Metrics: what serving Prometheus scrapes costs. For N Streamable HTTP sessions monitored by the registry (real
// peers, bench/peers/handshake-http-peer.mjs), the exporter of `mcp-health watch --metrics` serves /metrics to a
// scraper in its own process (bench/peers/metrics-scraper.mjs): scrape time and response size; then the CPU of one
// scrape, with probing parked, against the CPU of one keepalive probe measured in the same run at 1 Hz. The ratio
// figure is the CPU of scraping every 15 s over the CPU of the keepalive probes at the default HTTP interval (20 s).
import { once } from 'node:events';
import { join } from 'node:path';
import { startMetrics } from '../../src/metrics/index';
import type { MonitorRegistry } from '../../src/core/monitorTypes';
import type { BenchContext } from '../lib/context';
import { httpServer } from '../lib/configs';
import { benchSettings, clientInfo, type Ours } from '../lib/ours';
import { benchRoot } from '../lib/paths';
import { startHttpPeer, type HttpPeer } from '../lib/peers';
import { killChild, sleep, spawnTracked } from '../lib/processes';
import { round, summarize } from '../lib/stats';

const PEERS = 4;
const SCRAPE_EVERY_S = 15;
const RATIO_TARGET = 0.1;
const PARKED_INTERVAL_MS = 3_600_000;
const WARMUP_SCRAPES = 10;
const scraperScript = join(benchRoot, 'peers', 'metrics-scraper.mjs');

interface Plan {
  readonly count: number;
  readonly scrapes: number;
  readonly keepaliveWindowMs: number;
}

function plans(quick: boolean): Plan[] {
  if (quick) return [{ count: 100, scrapes: 20, keepaliveWindowMs: 2_000 }];
  return [
    { count: 100, scrapes: 100, keepaliveWindowMs: 5_000 },
    { count: 1000, scrapes: 50, keepaliveWindowMs: 5_000 },
  ];
}

interface ScrapeSample {
  readonly ms: number;
  readonly bytes: number;
  readonly status: number;
}

async function runScraper(url: string, count: number): Promise<ScrapeSample[]> {
  const child = spawnTracked(process.execPath, [scraperScript, url, String(count)]);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`scraper exited ${code}`);
  return JSON.parse(out) as ScrapeSample[];
}

const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

async function waitUntilUp(registry: MonitorRegistry, count: number, limitMs: number): Promise<number> {
  const deadline = Date.now() + limitMs;
  let up = 0;
  while (Date.now() < deadline) {
    up = registry.list().filter((status) => status.state === 'up').length;
    if (up === count) break;
    await sleep(200);
  }
  return up;
}

async function measure(context: BenchContext, ours: Ours, plan: Plan): Promise<void> {
  context.log(`metrics: ${plan.count} sessions, ${plan.scrapes} scrapes`);
  const peers: HttpPeer[] = [];
  for (let i = 0; i < PEERS; i++) peers.push(await startHttpPeer(0, 30_000));
  const settings = (intervalMs: number) => ({ ...benchSettings(ours.defaultMonitorSettings, intervalMs, 2_000), connectTimeoutMs: 30_000 });
  const registry = ours.createRegistry({
    connector: ours.createNodeConnector({ logger: ours.silentLogger, clientInfo }),
    clock: ours.systemClock,
    logger: ours.silentLogger,
    settings: settings(PARKED_INTERVAL_MS),
  });
  const exporter = await startMetrics({ registry, listen: { host: '127.0.0.1', port: 0 }, build: { version: 'bench', frontEnd: 'cli' }, timeoutMs: 2_000, env: {} });
  try {
    registry.setServers(Array.from({ length: plan.count }, (_, index) => httpServer(`server-${index}`, peers[index % PEERS].url)), []);
    registry.start();
    const up = await waitUntilUp(registry, plan.count, 60_000);
    // Two probe rounds so every histogram and counter has samples, as after a few minutes of watching.
    await registry.pingNow();
    await registry.pingNow();

    // Scrapes, with probing parked: the process CPU in this window is the exporter's.
    const url = `http://127.0.0.1:${exporter.address!.port}/metrics`;
    // Steady state, as under a Prometheus that scrapes all day: the first scrapes compile the code paths.
    await runScraper(url, WARMUP_SCRAPES);
    const scrapeStart = process.cpuUsage();
    const samples = await runScraper(url, plan.scrapes);
    const scrapeCpuMs = cpuMs(process.cpuUsage(scrapeStart));
    if (samples.some((sample) => sample.status !== 200)) throw new Error('a scrape failed');

    // Keepalive at 1 Hz for a window: CPU per probe, the exporter counting every probe as it does in production.
    let probes = 0;
    const unsubscribe = registry.onEvent((event) => {
      if (event.type === 'probe') probes += 1;
    });
    registry.updateSettings(settings(1_000));
    await sleep(1_500);
    probes = 0;
    const keepaliveStart = process.cpuUsage();
    await sleep(plan.keepaliveWindowMs);
    const keepaliveCpuMs = cpuMs(process.cpuUsage(keepaliveStart));
    const probesInWindow = probes;
    unsubscribe();
    registry.updateSettings(settings(PARKED_INTERVAL_MS));

    const time = summarize(samples.map((sample) => sample.ms));
    const bytes = samples[samples.length - 1]!.bytes;
    const cpuPerScrapeMs = scrapeCpuMs / plan.scrapes;
    const cpuPerProbeMs = keepaliveCpuMs / Math.max(1, probesInWindow);
    const defaultIntervalS = ours.defaultMonitorSettings.intervalMs.http / 1000;
    const scrapeCpuPerS = cpuPerScrapeMs / SCRAPE_EVERY_S;
    const keepaliveCpuPerS = (cpuPerProbeMs * plan.count) / defaultIntervalS;
    const note = `up ${up}/${plan.count}; ${plan.scrapes} scrapes (OpenMetrics) after ${WARMUP_SCRAPES} unmeasured; ${probesInWindow} probes in the ${plan.keepaliveWindowMs / 1000} s keepalive window`;
    context.raw[`metrics.${plan.count}`] = { plan, up, samples, scrapeCpuMs, keepaliveCpuMs, probesInWindow, cpuPerScrapeMs, cpuPerProbeMs };
    context.figures.push(
      { section: 'metrics', name: `${plan.count} servers: scrape time p50`, value: time.p50, unit: 'ms', reference: null, target: null, note },
      { section: 'metrics', name: `${plan.count} servers: scrape time p99`, value: time.p99, unit: 'ms', reference: null, target: null },
      { section: 'metrics', name: `${plan.count} servers: response size`, value: bytes / 1024, unit: 'KB', reference: null, target: null, note: `${round(bytes / plan.count, 0)} bytes per server` },
      { section: 'metrics', name: `${plan.count} servers: CPU per scrape`, value: cpuPerScrapeMs, unit: 'ms', reference: { name: 'CPU per keepalive probe', value: cpuPerProbeMs }, target: null },
      {
        section: 'metrics',
        name: `${plan.count} servers: CPU of a scrape every ${SCRAPE_EVERY_S} s`,
        value: scrapeCpuPerS,
        unit: 'ms/s',
        reference: { name: `keepalive at ${defaultIntervalS} s`, value: keepaliveCpuPerS },
        target: { max: RATIO_TARGET, on: 'ratio' },
      },
    );
  } finally {
    await exporter.close();
    await registry.dispose();
    await Promise.all(peers.map((peer) => killChild(peer.child)));
  }
}

export async function metricsCost(context: BenchContext, ours: Ours): Promise<void> {
  for (const plan of plans(context.quick)) await measure(context, ours, plan);
  if (context.quick) context.skipped.push({ section: 'metrics', reason: 'quick mode: 100 servers only; 1000 runs in the full mode' });
}
