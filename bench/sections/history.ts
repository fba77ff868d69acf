// 8. History recording and writes at N Streamable HTTP servers: the CPU of recording one keepalive round's outcomes
// into the roll-up buckets, plus the share of one history file write (encode under the size cap, atomic replace)
// that falls on one 20 s interval at the 45 s flush period, against one keepalive probe round over the same
// connections in the same process and run. The recorder is first filled with a full day of minutely history for
// every server (pruned to the file's cap as the extension would), so the write measured is the steady-state one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Connection } from '../../src/core/connection';
import { DAY_MS, encodeWithinCap, HistoryRecorder, MINUTE_MS, type ServerIdentity } from '../../src/core/history';
import type { ProbeResult } from '../../src/core/model';
import { writeFileAtomic } from '../../src/history/atomicWrite';
import { FLUSH_MS } from '../../src/history/historyStore';
import { httpServer } from '../lib/configs';
import type { BenchContext } from '../lib/context';
import { clientInfo, type Ours } from '../lib/ours';
import { startHttpPeer, type HttpPeer } from '../lib/peers';

const PEERS = 4;
const PROBE_TIMEOUT_MS = 10_000;
const CONNECT_CONCURRENCY = 16;
const ROUNDS = 5;
/** The default keepalive interval of an HTTP server: the period one probe round stands for. */
const INTERVAL_MS = 20_000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function cpuOf(work: () => Promise<unknown> | unknown): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / 1000;
}

export async function historyCost(context: BenchContext, ours: Ours): Promise<void> {
  const count = context.quick ? 100 : 500;
  const peers: HttpPeer[] = [];
  const connections: Connection[] = [];
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  const dir = await mkdtemp(path.join(tmpdir(), 'mcp-health-bench-history-'));
  try {
    for (let i = 0; i < PEERS; i++) peers.push(await startHttpPeer(0, 15_000));
    const servers = Array.from({ length: count }, (_, i) => httpServer(`history-${i}`, peers[i % PEERS].url));
    for (let next = 0; next < servers.length; next += CONNECT_CONCURRENCY) {
      const batch = servers.slice(next, next + CONNECT_CONCURRENCY);
      connections.push(...(await Promise.all(batch.map((server) => connector.connect(server, { timeoutMs: 15_000 })))));
    }
    const identities: ServerIdentity[] = servers.map((server) => ({ key: server.id, name: server.name, file: server.source.file }));

    // A day of history already kept: every server up and probed twice a minute, on a clock that runs ahead here.
    let now = Date.now() - DAY_MS;
    const recorder = new HistoryRecorder(() => now);
    for (const identity of identities) recorder.state(identity, 'up', 0, true);
    for (; now < Date.now(); now += 30_000) {
      for (const identity of identities) recorder.probe(identity, { method: 'ping', outcome: 'ok', rttMs: 0.4 });
      if (now % (30 * MINUTE_MS) < 30_000) recorder.settle();
    }
    now = Date.now();
    const file = path.join(dir, 'history.json');
    const write = async () => {
      recorder.settle();
      const { text } = encodeWithinCap(recorder, now);
      await writeFileAtomic(file, text);
      return text.length;
    };
    const bytes = await write(); // prunes to the cap once, as the first write after a busy day would
    context.log(`history: ${connections.length} connections, file ${Math.round(bytes / 1024)} KB after a day at ${count} servers`);

    const probeAll = () => Promise.all(connections.map((connection) => connection.probe(PROBE_TIMEOUT_MS)));
    let results: ProbeResult[] = await probeAll(); // warm-up
    const recordAll = () => {
      for (let i = 0; i < identities.length; i++) recorder.probe(identities[i], results[i]);
    };
    recordAll();
    const probes: number[] = [];
    const records: number[] = [];
    const writes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      probes.push(
        await cpuOf(async () => {
          results = await probeAll();
        }),
      );
      now += INTERVAL_MS;
      records.push(await cpuOf(recordAll));
      writes.push(await cpuOf(write));
    }
    if (results.some((result) => result.outcome !== 'ok')) throw new Error('a probe failed');
    const probeCpu = median(probes);
    const recordCpu = median(records);
    const writeCpu = median(writes);
    const perInterval = recordCpu + writeCpu * (INTERVAL_MS / FLUSH_MS);
    context.raw.history = { count, fileBytes: bytes, probeCpuMs: probes, recordCpuMs: records, writeCpuMs: writes };
    context.figures.push({
      section: 'history',
      name: `CPU of history at ${count} servers per 20 s interval (record one probe round + ${INTERVAL_MS / 1000}/${FLUSH_MS / 1000} of a file write)`,
      value: perInterval,
      unit: 'ms',
      reference: { name: `one keepalive probe round over the same ${count} connections`, value: probeCpu },
      target: null,
      note: `record ${recordCpu.toFixed(2)} ms, one write ${writeCpu.toFixed(1)} ms (${Math.round(bytes / 1024)} KB file, a day of history, at the 5 MB cap or under)`,
    });
  } finally {
    await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
    connector.dispose?.();
    await Promise.all(peers.map((peer) => peer.kill()));
    await rm(dir, { recursive: true, force: true });
  }
}
