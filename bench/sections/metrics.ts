// 5. Metrics: what serving Prometheus scrapes costs. For N Streamable HTTP sessions monitored by the registry (real
// peers, bench/peers/handshake-http-peer.mjs), the exporter of `mcp-health watch --metrics` serves /metrics to a
// scraper in its own process (bench/peers/metrics-scraper.mjs): scrape time and response size, and the CPU of each
// scrape taken alone, probing parked, right after a probe round (every series changed since the last scrape, as in
// production at most; nothing cached can hide the work) and a full collection; a /healthz request under the same
// procedure is the control. The ratio figures set the CPU of a scrape every 15 s beside the keepalive at the default
// HTTP interval (20 s): once from the CPU per probe at 1 Hz (the stricter: a probe at 1 Hz is cheaper than one after
// 20 s idle), once measured over one 20 s interval itself.
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startMetrics } from '../../src/metrics/index';
import type { MonitorRegistry } from '../../src/core/monitorTypes';
import type { BenchContext } from '../lib/context';
import { httpServer } from '../lib/configs';
import { benchSettings, clientInfo, type Ours } from '../lib/ours';
import { startWindowProfiler, type WindowProfiler } from '../lib/inProcessProfile';
import { benchRoot, resultsDir } from '../lib/paths';
import { summarizeProfiles, type ProfileSummary } from '../lib/profileSummary';
import { startHttpPeer, type HttpPeer } from '../lib/peers';
import { killChild, sleep, spawnTracked } from '../lib/processes';
import { round, summarize } from '../lib/stats';

const PEERS = 4;
const SCRAPE_EVERY_S = 15;
const RATIO_TARGET = 0.1;
const PARKED_INTERVAL_MS = 3_600_000;
/** After a probe round, before a scrape: the round's last replies and events are handled. */
const SETTLE_MS = 50;
const scraperScript = join(benchRoot, 'peers', 'metrics-scraper.mjs');

interface Plan {
  readonly count: number;
  readonly scrapes: number;
  readonly warmup: number;
  readonly keepaliveWindowMs: number;
  /** Also measure keepalive over one default interval (20 s); not in --quick. */
  readonly defaultIntervalWindow: boolean;
}

function plans(quick: boolean): Plan[] {
  if (quick) return [{ count: 100, scrapes: 20, warmup: 5, keepaliveWindowMs: 2_000, defaultIntervalWindow: false }];
  return [
    { count: 100, scrapes: 30, warmup: 5, keepaliveWindowMs: 5_000, defaultIntervalWindow: true },
    { count: 1000, scrapes: 6, warmup: 2, keepaliveWindowMs: 5_000, defaultIntervalWindow: true },
  ];
}

interface ScrapeSample {
  readonly ms: number;
  readonly bytes: number;
  readonly status: number;
}

interface Scraper {
  /** `healthz`: the same request to /healthz, the control for what a request costs besides the metrics. */
  scrape(what: 'metrics' | 'healthz'): Promise<ScrapeSample>;
  close(): Promise<void>;
}

/** The scraper process, one scrape per request, so the bench can change the metrics between scrapes. */
function startScraper(url: string): Scraper {
  const child = spawnTracked(process.execPath, [scraperScript, url], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: Array<{ resolve: (sample: ScrapeSample) => void; reject: (error: Error) => void }> = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  createInterface({ input: child.stdout! }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line) as ScrapeSample));
  child.once('exit', (code) => {
    for (const pending of waiting.splice(0)) pending.reject(new Error(`scraper exited ${code}: ${stderr}`));
  });
  return {
    scrape: (what) =>
      new Promise<ScrapeSample>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin!.write(`${what}\n`);
      }),
    close: async () => {
      const exited = once(child, 'exit');
      child.stdin!.end();
      await exited;
    },
  };
}

/**
 * A full collection before each measured scrape: the garbage of the probe round just run is the keepalive's cost
 * (counted in its own window), not the scrape's. The bench runs without --expose-gc, hence the flag set at run time.
 */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
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
  const exporter = await startMetrics({
    registry,
    listen: { host: '127.0.0.1', port: 0 },
    build: { version: 'bench', frontEnd: 'cli' },
    timeoutMs: 2_000,
    env: {},
  });
  try {
    registry.setServers(
      Array.from({ length: plan.count }, (_, index) => httpServer(`server-${index}`, peers[index % PEERS].url)),
      [],
    );
    registry.start();
    const up = await waitUntilUp(registry, plan.count, 60_000);
    context.log(`metrics: ${up}/${plan.count} up`);
    // Two probe rounds so every histogram and counter has samples, as after a few minutes of watching.
    await registry.pingNow();
    await registry.pingNow();

    // Each scrape follows a probe round, as in production where a scrape every 15 s finds most servers probed since
    // the last one (at the default 20 s interval, three in four; here every one, the worst case for anything cached).
    // CPU is taken over the scrape alone, with probing parked and the round settled.
    const url = `http://127.0.0.1:${exporter.address!.port}/metrics`;
    const scraper = startScraper(url);
    const collect = fullGc();
    const samples: ScrapeSample[] = [];
    let scrapeCpuMs = 0;
    let controlCpuMs = 0;
    let profile: ProfileSummary | undefined;
    try {
      const afterRound = async (
        what: 'metrics' | 'healthz',
        profiler?: WindowProfiler,
      ): Promise<{ sample: ScrapeSample; cpuMs: number }> => {
        // The control needs no fresh metrics, only the same collection and settling before it.
        if (what === 'metrics') await registry.pingNow();
        await sleep(SETTLE_MS);
        collect();
        // Let the collector's background threads finish: process CPU counts every thread.
        await sleep(SETTLE_MS);
        const start = process.cpuUsage();
        const sample = profiler ? await profiler.window(() => scraper.scrape(what)) : await scraper.scrape(what);
        return { sample, cpuMs: cpuMs(process.cpuUsage(start)) };
      };
      // Steady state, as under a Prometheus that scrapes all day: the first scrapes compile the code paths.
      for (let i = 0; i < plan.warmup; i++) {
        await afterRound('metrics');
        await afterRound('healthz');
      }
      // --profile: where the CPU of the measured scrapes goes (the profiler's own cost inflates that run's figures).
      const profiler = context.profile ? await startWindowProfiler() : undefined;
      for (let i = 0; i < plan.scrapes; i++) {
        const { sample, cpuMs: ms } = await afterRound('metrics', profiler);
        samples.push(sample);
        scrapeCpuMs += ms;
        // The control, the same procedure with /healthz: what the bench's own machinery costs in the window.
        controlCpuMs += (await afterRound('healthz')).cpuMs;
        if ((i + 1) % 10 === 0) context.log(`metrics: ${i + 1}/${plan.scrapes} scrapes`);
      }
      if (profiler) {
        await profiler.close(join(resultsDir, 'profiles', `metrics-${plan.count}.cpuprofile`));
        profile = summarizeProfiles(profiler.profiles, 25);
      }
    } finally {
      await scraper.close();
    }
    if (samples.some((sample) => sample.status !== 200)) throw new Error('a scrape failed');

    context.log(`metrics: ${plan.scrapes} scrapes done; keepalive windows`);
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
    // Keepalive at the default interval itself, as the scale section measures it: a round starts the phase, and the
    // window from T/2 to 3T/2 holds one probe of each server. A probe after 20 s idle costs more than one at 1 Hz
    // (cold sockets and caches): this is the keepalive cost a scrape every 15 s is actually set beside.
    const defaultIntervalMs = ours.defaultMonitorSettings.intervalMs.http;
    let slow: { cpuMs: number; probes: number } | undefined;
    if (plan.defaultIntervalWindow) {
      registry.updateSettings(settings(defaultIntervalMs));
      void registry.pingNow();
      await sleep(defaultIntervalMs / 2);
      probes = 0;
      const slowStart = process.cpuUsage();
      await sleep(defaultIntervalMs);
      slow = { cpuMs: cpuMs(process.cpuUsage(slowStart)), probes };
    }
    unsubscribe();
    registry.updateSettings(settings(PARKED_INTERVAL_MS));

    const time = summarize(samples.map((sample) => sample.ms));
    const bytes = samples[samples.length - 1]!.bytes;
    const cpuPerScrapeMs = scrapeCpuMs / plan.scrapes;
    const controlPerRequestMs = controlCpuMs / plan.scrapes;
    const cpuPerProbeMs = keepaliveCpuMs / Math.max(1, probesInWindow);
    const defaultIntervalS = ours.defaultMonitorSettings.intervalMs.http / 1000;
    const scrapeCpuPerS = cpuPerScrapeMs / SCRAPE_EVERY_S;
    const keepaliveCpuPerS = (cpuPerProbeMs * plan.count) / defaultIntervalS;
    const note = `up ${up}/${plan.count}; ${plan.scrapes} scrapes (OpenMetrics), each after a probe round, after ${plan.warmup} unmeasured; ${probesInWindow} probes in the ${plan.keepaliveWindowMs / 1000} s keepalive window`;
    context.raw[`metrics.${plan.count}`] = {
      plan,
      up,
      samples,
      scrapeCpuMs,
      keepaliveCpuMs,
      probesInWindow,
      cpuPerScrapeMs,
      controlPerRequestMs,
      cpuPerProbeMs,
      slow,
      ...(profile ? { profile } : {}),
    };
    context.figures.push(
      {
        section: 'metrics',
        name: `${plan.count} servers: scrape time p50`,
        value: time.p50,
        unit: 'ms',
        reference: null,
        target: null,
        note,
      },
      { section: 'metrics', name: `${plan.count} servers: scrape time p99`, value: time.p99, unit: 'ms', reference: null, target: null },
      {
        section: 'metrics',
        name: `${plan.count} servers: response size`,
        value: bytes / 1024,
        unit: 'KB',
        reference: null,
        target: null,
        note: `${round(bytes / plan.count, 0)} bytes per server`,
      },
      {
        section: 'metrics',
        name: `${plan.count} servers: CPU per scrape`,
        value: cpuPerScrapeMs,
        unit: 'ms',
        reference: { name: 'CPU per keepalive probe', value: cpuPerProbeMs },
        target: null,
      },
      {
        section: 'metrics',
        name: `${plan.count} servers: CPU per /healthz (control)`,
        value: controlPerRequestMs,
        unit: 'ms',
        reference: { name: 'CPU per scrape', value: cpuPerScrapeMs },
        target: null,
      },
      {
        section: 'metrics',
        name: `${plan.count} servers: CPU of a scrape every ${SCRAPE_EVERY_S} s`,
        value: scrapeCpuPerS,
        unit: 'ms/s',
        reference: { name: `keepalive at ${defaultIntervalS} s from 1 Hz`, value: keepaliveCpuPerS },
        target: { max: RATIO_TARGET, on: 'ratio' },
      },
    );
    if (slow) {
      context.figures.push({
        section: 'metrics',
        name: `${plan.count} servers: CPU of a scrape every ${SCRAPE_EVERY_S} s`,
        value: scrapeCpuPerS,
        unit: 'ms/s',
        reference: { name: `keepalive at ${defaultIntervalS} s, measured`, value: slow.cpuMs / (defaultIntervalMs / 1000) },
        target: { max: RATIO_TARGET, on: 'ratio' },
        note: `${slow.probes} probes in the ${defaultIntervalS} s window (one per server expected); ${round(slow.cpuMs / Math.max(1, slow.probes), 3)} ms CPU per probe at ${defaultIntervalS} s against ${round(cpuPerProbeMs, 3)} ms at 1 Hz`,
      });
    }
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
