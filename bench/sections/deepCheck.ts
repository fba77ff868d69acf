// 5. The deep check: the once-per-connection listing of tools, prompts and resources, at N Streamable HTTP servers,
// against one keepalive round over the same connections in the same process and run. Peers are separate processes
// (bench/peers/handshake-http-peer.mjs --tools 20), so only the client's CPU is counted.
import type { Connection } from '../../src/core/connection';
import { collectInventory, defaultInventoryLimits } from '../../src/core/inventory';
import { httpServer } from '../lib/configs';
import type { BenchContext } from '../lib/context';
import { clientInfo, type Ours } from '../lib/ours';
import { startHttpPeer, type HttpPeer } from '../lib/peers';

const PEERS = 4;
const TOOLS_PER_SERVER = 20;
const PROBE_TIMEOUT_MS = 10_000;
const CONNECT_CONCURRENCY = 16;
const ROUNDS = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** CPU (user + system) and wall time of one round over every connection, ms. */
async function measure(work: () => Promise<unknown>): Promise<{ cpuMs: number; wallMs: number }> {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await work();
  const cpu = process.cpuUsage(cpuBefore);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - start };
}

export async function deepCheckCost(context: BenchContext, ours: Ours): Promise<void> {
  const count = context.quick ? 100 : 500;
  const peers: HttpPeer[] = [];
  const connections: Connection[] = [];
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  try {
    for (let i = 0; i < PEERS; i++) peers.push(await startHttpPeer(0, 15_000, TOOLS_PER_SERVER));
    const servers = Array.from({ length: count }, (_, i) => httpServer(`deep-${i}`, peers[i % PEERS].url));
    for (let next = 0; next < servers.length; next += CONNECT_CONCURRENCY) {
      const batch = servers.slice(next, next + CONNECT_CONCURRENCY);
      connections.push(...(await Promise.all(batch.map((server) => connector.connect(server, { timeoutMs: 15_000 })))));
    }
    context.log(`deep check: ${connections.length} connections, ${TOOLS_PER_SERVER} tools each`);
    const listAll = () =>
      Promise.all(
        connections.map((connection) =>
          collectInventory(
            { request: (method, params, timeoutMs) => connection.request!(method, params, timeoutMs) },
            connection.listCapabilities!,
            defaultInventoryLimits,
            () => performance.now(),
            () => Date.now(),
          ),
        ),
      );
    const probeAll = () => Promise.all(connections.map((connection) => connection.probe(PROBE_TIMEOUT_MS)));
    // Warm both paths up once (JIT, sockets) before measuring.
    const warm = await listAll();
    if (warm.some((inventory) => !inventory.complete || inventory.tools?.count !== TOOLS_PER_SERVER))
      throw new Error('a listing was incomplete');
    await probeAll();
    const probes: number[] = [];
    const listings: number[] = [];
    const listingWall: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      probes.push((await measure(probeAll)).cpuMs);
      const listed = await measure(listAll);
      listings.push(listed.cpuMs);
      listingWall.push(listed.wallMs);
    }
    const probeCpu = median(probes);
    const listCpu = median(listings);
    context.raw.deepCheck = {
      count,
      toolsPerServer: TOOLS_PER_SERVER,
      probeCpuMs: probes,
      listingCpuMs: listings,
      listingWallMs: listingWall,
    };
    context.figures.push({
      section: 'deep check',
      name: `CPU of listing tools/prompts/resources at ${count} servers (${TOOLS_PER_SERVER} tools each), one round`,
      value: listCpu,
      unit: 'ms',
      reference: { name: `one keepalive probe round over the same ${count} connections`, value: probeCpu },
      target: null,
      note: `once per connection, never on the keepalive path; wall ${Math.round(median(listingWall))} ms`,
    });
  } finally {
    await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
    connector.dispose?.();
    await Promise.all(peers.map((peer) => peer.kill()));
  }
}
