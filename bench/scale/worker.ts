// One monitoring process for the scale section: `ours` (registry + connector), `baseline` (one SDK 1.x client per
// server, setInterval ping), `sdk2` (the same naive client on the SDK 2.x that ours is built on), `sdk2transport` (SDK
// 2.x's Streamable HTTP transport alone: the least any client on it pays per ping) or `raw` (bare node:http, the
// floor). Runs in a fresh `node --expose-gc` process, so its
// process.cpuUsage() and memory hold nothing but the monitor.
// Protocol: connects every server with probing parked, prints `READY <json>`; then reads commands on stdin, one JSON
// per line: {"cmd":"phase","intervalMs","settleMs","windowMs"} -> `PHASE <json>` (and parks again), {"cmd":"stop"}.
// Every phase starts spread: server i's first probe at its own offset in the interval (`spreadOffsetMs`, the same for
// every contender), as a monitor's probes fall once its servers connected at different moments and answered in
// different times (bench/sections/scale.ts says why).
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as StreamableHTTPClientTransport2 } from '@modelcontextprotocol/client';
import { httpServer } from '../lib/configs';
import { spreadOffsetMs } from '../lib/spread';
import { clientInfo, loadOurs } from '../lib/ours';
import { transportAlone, type NaiveClient } from '../lib/sdk2TransportAlone';

export type WorkerMode = 'ours' | 'baseline' | 'sdk2' | 'sdk2transport' | 'raw';

export interface WorkerRequest {
  readonly mode: WorkerMode;
  readonly urls: readonly string[];
  readonly connectDeadlineMs: number;
}

export interface PhaseCommand {
  readonly cmd: 'phase';
  readonly intervalMs: number;
  readonly settleMs: number;
  readonly windowMs: number;
}

export interface ReadyReport {
  readonly mode: WorkerMode;
  readonly count: number;
  readonly connectMs: number;
  readonly up: number;
  readonly heapBeforeBytes: number;
  readonly heapConnectedBytes: number;
  readonly rssBeforeBytes: number;
  readonly rssConnectedBytes: number;
}

export interface PhaseReport {
  readonly intervalMs: number;
  readonly windowMs: number;
  readonly upAtWindowStart: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  /** CPU time over wall time in the window: 1 = one core busy. */
  readonly cpuFraction: number;
  readonly probesInWindow: number;
  readonly failedProbesInWindow: number;
  readonly rssBytes: number;
  /** How late the window's timer fired: a busy event loop shows here. */
  readonly timerLagMs: number;
  /** From the phase's first probe round to the window's end: failed probes, and servers that stopped being up. */
  readonly failedInPhase: number;
  readonly leftUpInPhase: number;
  /** Set where several windows were summed (bench/sections/scale.ts): each window's CPU per probe, in µs. */
  readonly perWindowProbeUs?: readonly number[];
}

interface Monitor {
  readonly upCount: () => number;
  /** Times a server stopped being up (ours: a state event away from `up`; the naive clients never reconnect). */
  readonly leftUp: () => number;
  readonly probes: { ok: number; failed: number };
  /** Probes every server every intervalMs from now on, server i first at its spread offset. */
  readonly begin: (intervalMs: number) => void;
  /** No probes at all until the next `begin`. */
  readonly park: () => void;
  readonly stop: () => Promise<void>;
}

const PROBE_TIMEOUT_MS = 5000;
const RAW_PROTOCOL_VERSION = '2025-06-18';
/** Ours cannot be told "never": an hour is never within a bench. */
const PARKED_INTERVAL_MS = 3_600_000;
const CONNECT_LANES = 64;

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, deadlineMs: number): Promise<void> {
  const end = performance.now() + deadlineMs;
  while (!condition() && performance.now() < end) await sleep(50);
}

/** Bounded parallelism for the hand-written monitors, as their authors would do it. */
function connectAll(urls: readonly string[], connectOne: (url: string) => Promise<void>): void {
  const queue = [...urls];
  const lanes = Array.from({ length: CONNECT_LANES }, async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) await connectOne(url).catch(() => undefined);
  });
  void Promise.all(lanes);
}

/** Per-server ping loops driven by setInterval, re-armed at every phase. */
function intervalPingers(pingers: Array<() => void>): Pick<Monitor, 'begin' | 'park'> {
  // First-ping timeouts and intervals alike (clearTimeout clears either).
  let timers: NodeJS.Timeout[] = [];
  const park = (): void => {
    for (const timer of timers) clearTimeout(timer);
    timers = [];
  };
  const loop = (ping: () => void, ms: number): void => {
    ping();
    timers.push(setInterval(ping, ms));
  };
  return {
    park,
    begin(ms) {
      park();
      pingers.forEach((ping, index) => timers.push(setTimeout(() => loop(ping, ms), spreadOffsetMs(index, ms))));
    },
  };
}

async function startOurs(request: WorkerRequest): Promise<Monitor> {
  const ours = await loadOurs();
  const settingsFor = (intervalMs: number) => ({
    ...ours.defaultMonitorSettings,
    intervalMs: { stdio: intervalMs, http: intervalMs, sse: intervalMs },
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  const registry = ours.createRegistry({
    connector,
    clock: ours.systemClock,
    logger: ours.silentLogger,
    settings: settingsFor(PARKED_INTERVAL_MS),
  });
  const probes = { ok: 0, failed: 0 };
  let up = 0;
  let leftUp = 0;
  registry.onEvent((event) => {
    if (event.type === 'probe') {
      if (event.result.outcome === 'ok') probes.ok++;
      else probes.failed++;
    } else if (event.type === 'state') {
      if (event.to === 'up') up++;
      if (event.from === 'up') {
        up--;
        leftUp++;
      }
    }
  });
  const servers = request.urls.map((url, index) => httpServer(`peer-${index}`, url));
  registry.setServers(servers, []);
  registry.start();
  let firstRound: NodeJS.Timeout[] = [];
  const park = (): void => {
    for (const timer of firstRound) clearTimeout(timer);
    firstRound = [];
    registry.updateSettings(settingsFor(PARKED_INTERVAL_MS));
  };
  return {
    upCount: () => up,
    leftUp: () => leftUp,
    probes,
    begin(ms) {
      park();
      // Ours probes an interval after each answer: each server's first probe at its offset (still parked), then the
      // interval, which counts from those answers.
      servers.forEach((server, index) => firstRound.push(setTimeout(() => void registry.pingNow(server.id), spreadOffsetMs(index, ms))));
      firstRound.push(setTimeout(() => registry.updateSettings(settingsFor(ms)), ms));
    },
    park,
    stop: async () => {
      for (const timer of firstRound) clearTimeout(timer);
      await registry.dispose();
    },
  };
}

/** Either SDK's client and Streamable HTTP transport, as far as a naive pinger uses them. */
interface SdkPair {
  readonly client: {
    connect(transport: never): Promise<void>;
    ping(options: { timeout: number }): Promise<unknown>;
    close(): Promise<void>;
  };
  readonly transport: { terminateSession(): Promise<void> };
}

async function naiveClient({ client, transport }: SdkPair): Promise<NaiveClient> {
  await client.connect(transport as never);
  return {
    ping: (timeout) => client.ping({ timeout }),
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

const sdk1Client = (url: string): Promise<NaiveClient> =>
  naiveClient({ client: new Client(clientInfo, { capabilities: {} }), transport: new StreamableHTTPClientTransport(new URL(url)) });
const sdk2Client = (url: string): Promise<NaiveClient> =>
  naiveClient({ client: new Client2(clientInfo, { capabilities: {} }), transport: new StreamableHTTPClientTransport2(new URL(url)) });

async function startNaive(request: WorkerRequest, open: (url: string) => Promise<NaiveClient>): Promise<Monitor> {
  const probes = { ok: 0, failed: 0 };
  const clients: NaiveClient[] = [];
  const pingers: Array<() => void> = [];
  let up = 0;
  connectAll(request.urls, async (url) => {
    const client = await open(url);
    clients.push(client);
    up++;
    pingers.push(() => {
      client.ping(PROBE_TIMEOUT_MS).then(
        () => probes.ok++,
        () => probes.failed++,
      );
    });
  });
  const loops = intervalPingers(pingers);
  return {
    upCount: () => up,
    leftUp: () => 0,
    probes,
    ...loops,
    stop: async () => {
      loops.park();
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}

/**
 * The floor: keepalive over HTTP with no MCP layer at all. One shared keep-alive agent, a hand-rolled initialize and
 * ping over node:http.
 */
async function startRaw(request: WorkerRequest): Promise<Monitor> {
  const agent = new Agent({ keepAlive: true });
  const probes = { ok: 0, failed: 0 };
  const sessions: { url: string; sessionId: string }[] = [];
  const pingers: Array<() => void> = [];
  let up = 0;
  let nextId = 1;
  const post = (url: string, body: object, sessionId?: string): Promise<{ status: number; sessionId?: string; body: string }> =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const headers: Record<string, string | number> = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(text),
      };
      if (sessionId) {
        headers['mcp-session-id'] = sessionId;
        headers['mcp-protocol-version'] = RAW_PROTOCOL_VERSION;
      }
      const req = httpRequest(url, { method: 'POST', agent, headers, timeout: PROBE_TIMEOUT_MS }, (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, sessionId: res.headers['mcp-session-id'] as string | undefined, body: data }),
        );
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end(text);
    });
  connectAll(request.urls, async (url) => {
    const init = await post(url, {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: RAW_PROTOCOL_VERSION, capabilities: {}, clientInfo },
    });
    if (init.status !== 200 || !init.sessionId) throw new Error(`initialize: HTTP ${init.status}`);
    const sessionId = init.sessionId;
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
    sessions.push({ url, sessionId });
    up++;
    pingers.push(() => {
      const id = nextId++;
      post(url, { jsonrpc: '2.0', id, method: 'ping' }, sessionId).then(
        (answer) => (answer.status === 200 && (JSON.parse(answer.body) as { id?: unknown }).id === id ? probes.ok++ : probes.failed++),
        () => probes.failed++,
      );
    });
  });
  const loops = intervalPingers(pingers);
  return {
    upCount: () => up,
    leftUp: () => 0,
    probes,
    ...loops,
    stop: async () => {
      loops.park();
      await Promise.all(
        sessions.map(
          ({ url, sessionId }) =>
            new Promise<void>((resolve) => {
              const req = httpRequest(url, { method: 'DELETE', agent, headers: { 'mcp-session-id': sessionId }, timeout: 2000 }, (res) => {
                res.resume();
                res.on('end', resolve);
              });
              req.on('error', () => resolve());
              req.on('timeout', () => req.destroy());
              req.end();
            }),
        ),
      );
      agent.destroy();
    },
  };
}

async function runPhase(monitor: Monitor, command: PhaseCommand): Promise<PhaseReport> {
  const phaseStart = { failed: monitor.probes.failed, leftUp: monitor.leftUp() };
  monitor.begin(command.intervalMs);
  await sleep(command.settleMs);
  const upAtWindowStart = monitor.upCount();
  const probesBefore = { ...monitor.probes };
  const cpuBefore = process.cpuUsage();
  const windowStart = performance.now();
  await sleep(command.windowMs);
  const cpu = process.cpuUsage(cpuBefore);
  const windowMs = performance.now() - windowStart;
  const probesInWindow = monitor.probes.ok + monitor.probes.failed - probesBefore.ok - probesBefore.failed;
  monitor.park();
  return {
    intervalMs: command.intervalMs,
    windowMs,
    upAtWindowStart,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    cpuFraction: (cpu.user + cpu.system) / 1000 / windowMs,
    probesInWindow,
    failedProbesInWindow: monitor.probes.failed - probesBefore.failed,
    rssBytes: process.memoryUsage().rss,
    timerLagMs: windowMs - command.windowMs,
    failedInPhase: monitor.probes.failed - phaseStart.failed,
    leftUpInPhase: monitor.leftUp() - phaseStart.leftUp,
  };
}

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2]) as WorkerRequest;
  const count = request.urls.length;
  // Load the code before the first heap reading, so module code is not counted as per-server memory.
  await loadOurs();
  collect();
  const before = process.memoryUsage();
  const connectStart = performance.now();
  const monitor =
    request.mode === 'ours'
      ? await startOurs(request)
      : request.mode === 'baseline'
        ? await startNaive(request, sdk1Client)
        : request.mode === 'sdk2'
          ? await startNaive(request, sdk2Client)
          : request.mode === 'sdk2transport'
            ? await startNaive(request, (url) => transportAlone(url, clientInfo))
            : await startRaw(request);
  await until(() => monitor.upCount() >= count, request.connectDeadlineMs);
  const connectMs = performance.now() - connectStart;
  await sleep(1000);
  collect();
  const connected = process.memoryUsage();
  const ready: ReadyReport = {
    mode: request.mode,
    count,
    connectMs,
    up: monitor.upCount(),
    heapBeforeBytes: before.heapUsed,
    heapConnectedBytes: connected.heapUsed,
    rssBeforeBytes: before.rss,
    rssConnectedBytes: connected.rss,
  };
  process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
  for await (const line of createInterface({ input: process.stdin })) {
    const command = JSON.parse(line) as PhaseCommand | { cmd: 'stop' };
    if (command.cmd === 'stop') break;
    process.stdout.write(`PHASE ${JSON.stringify(await runPhase(monitor, command))}\n`);
  }
  await Promise.race([monitor.stop(), sleep(10_000)]);
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`scale worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
