// 1. Probe overhead: our Connection.probe against a bare JSON-RPC exchange with the same body on the same transport.
import { performance } from 'node:perf_hooks';
import type { Connection } from '../../src/core/connection';
import { httpServer, stdioFaultServer } from '../lib/configs';
import type { BenchContext } from '../lib/context';
import { clientInfo, type Ours } from '../lib/ours';
import { startHttpPeer } from '../lib/peers';
import { crossCorePlacement } from '../lib/placement';
import { closeRawHttp, fetchPing, httpRequestPing, type SessionTarget } from '../lib/rawHttp';
import { initializeRaw, spawnRawStdio } from '../lib/rawStdio';
import { transportAlone, type NaiveClient } from '../lib/sdk2TransportAlone';
import { summarize, type Summary } from '../lib/stats';

const PROBE_TIMEOUT_MS = 2000;
const TARGET_P50_RATIO = 1.3;
const SDK_TRANSPORT = 'SDK 2.x transport alone';

type Variant = { readonly name: string; readonly exchange: () => Promise<void> };

/**
 * Rounds of `batch` exchanges per variant, the variant order rotating each round, so drift (JIT, CPU frequency,
 * neighbours) lands on every variant alike.
 */
async function interleaved(variants: readonly Variant[], rounds: number, batch: number, warmup: number): Promise<Map<string, number[]>> {
  const samples = new Map(variants.map((variant) => [variant.name, [] as number[]]));
  for (const variant of variants) for (let i = 0; i < warmup; i++) await variant.exchange();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(round + k) % variants.length];
      const bucket = samples.get(variant.name) as number[];
      for (let i = 0; i < batch; i++) {
        const start = performance.now();
        await variant.exchange();
        bucket.push(performance.now() - start);
      }
    }
  }
  return samples;
}

function ourProbe(connection: Connection): () => Promise<void> {
  return async () => {
    const result = await connection.probe(PROBE_TIMEOUT_MS);
    if (result.outcome !== 'ok') throw new Error(`our probe failed: ${result.outcome} ${result.detail ?? ''}`);
  };
}

function record(
  context: BenchContext,
  transport: string,
  samples: Map<string, number[]>,
  ours: string,
  rawNames: readonly string[],
  note: string,
  floorName?: string,
): void {
  const summaries: Record<string, Summary> = {};
  for (const [name, values] of samples) summaries[name] = summarize(values);
  context.raw[`probeOverhead.${transport}`] = { note, summaries, samplesMs: Object.fromEntries(samples) };
  const ourSummary = summaries[ours];
  const primary = summaries[rawNames[0]];
  context.figures.push(
    {
      section: 'probe',
      name: `${transport} probe p50`,
      value: ourSummary.p50,
      unit: 'ms',
      reference: { name: `${rawNames[0]} p50`, value: primary.p50 },
      target: { max: TARGET_P50_RATIO, on: 'ratio' },
      ...(floorName ? { floor: { name: `${floorName} p50`, value: summaries[floorName].p50 } } : {}),
      note,
    },
    {
      section: 'probe',
      name: `${transport} probe p99`,
      value: ourSummary.p99,
      unit: 'ms',
      reference: { name: `${rawNames[0]} p99`, value: primary.p99 },
      target: null,
      note,
    },
  );
  for (const extra of rawNames.slice(1)) {
    context.figures.push({
      section: 'probe',
      name: `${transport} probe p50 vs ${extra}`,
      value: ourSummary.p50,
      unit: 'ms',
      reference: { name: `${extra} p50`, value: summaries[extra].p50 },
      target: null,
    });
  }
}

async function httpOverhead(context: BenchContext, ours: Ours, rounds: number, batch: number): Promise<void> {
  const peer = await startHttpPeer();
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  let connection: Connection | undefined;
  let sdkTransport: NaiveClient | undefined;
  try {
    connection = await connector.connect(httpServer('probe-http', peer.url), { timeoutMs: 10_000, eraHint: 'handshake' });
    const sessions = await peer.sessionIds();
    if (sessions.length !== 1) throw new Error(`expected the peer to hold exactly our session, it holds ${sessions.length}`);
    const target: SessionTarget = { url: peer.url, sessionId: sessions[0], protocolVersion: connection.protocolVersion ?? '2025-06-18' };
    sdkTransport = await transportAlone(peer.url, clientInfo);
    const viaTransport = sdkTransport;
    let id = 1_000_000;
    const samples = await interleaved(
      [
        { name: 'ours', exchange: ourProbe(connection) },
        { name: 'raw fetch', exchange: () => fetchPing(target, id++) },
        { name: 'raw http.request', exchange: () => httpRequestPing(target, id++) },
        { name: SDK_TRANSPORT, exchange: async () => void (await viaTransport.ping(PROBE_TIMEOUT_MS)) },
      ],
      rounds,
      batch,
      Math.min(200, batch * 2),
    );
    record(
      context,
      'http',
      samples,
      'ours',
      ['raw fetch', 'raw http.request', SDK_TRANSPORT],
      'same peer process (bench/peers/handshake-http-peer.mjs), same headers; raw fetch and raw http.request on our session, the SDK 2.x transport alone on a session of its own; our probe goes through the SDK transport, on fetch like raw fetch; raw http.request (node:http, keep-alive agent) is the cheapest exchange, the SDK transport alone the cheapest a client on that transport can do (principle 1)',
      SDK_TRANSPORT,
    );
  } finally {
    await sdkTransport?.close();
    await connection?.close();
    closeRawHttp();
    await peer.kill();
  }
}

async function stdioOverhead(context: BenchContext, ours: Ours, rounds: number, batch: number): Promise<void> {
  const server = stdioFaultServer('probe-stdio');
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  // Taken last before the servers start, so that nothing between it and the `finally` that gives it back can throw.
  const placement = crossCorePlacement();
  const config = placement ? { ...server, ...placement.pinned(server.command as string, server.args as string[]) } : server;
  const raw = spawnRawStdio(config.command as string, config.args as string[]);
  let connection: Connection | undefined;
  try {
    connection = await connector.connect(config, { timeoutMs: 10_000, eraHint: 'handshake' });
    await initializeRaw(raw, connection.protocolVersion ?? '2025-06-18');
    let id = 1;
    const samples = await interleaved(
      [
        { name: 'ours', exchange: ourProbe(connection) },
        {
          name: 'raw pipe',
          exchange: async () => {
            await raw.request({ id: id++, method: 'ping' }, PROBE_TIMEOUT_MS);
          },
        },
      ],
      rounds,
      batch,
      Math.min(200, batch * 2),
    );
    record(
      context,
      'stdio',
      samples,
      'ours',
      ['raw pipe'],
      `our connection pipe is not reachable from outside: raw = a second instance of the same server binary (test/fixtures/servers/fault-server.mjs, SDK 1.x) spawned the same way, newline-JSON over its pipes; ${placement ? `both servers on CPU ${placement.serverCpu}, this process on the others (bench/lib/placement.ts)` : 'placed by the scheduler (one CPU or no taskset)'}`,
    );
  } finally {
    await connection?.close();
    await raw.close();
    placement?.restore();
  }
}

export async function probeOverhead(context: BenchContext, ours: Ours): Promise<void> {
  const rounds = context.quick ? 6 : 30;
  const batch = context.quick ? 50 : 100;
  context.log(`probe overhead: ${rounds * batch} exchanges per variant`);
  await httpOverhead(context, ours, rounds, batch);
  await stdioOverhead(context, ours, rounds, batch);
}
