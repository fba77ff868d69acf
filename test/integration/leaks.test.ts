// 1000 connect/disconnect cycles through the real registry and connector across stdio, Streamable HTTP and legacy
// SSE, then: no child left, descriptors and handles back to baseline, no listener warning, heap flat.
// MCP_HEALTH_SOAK=1 multiplies the cycle counts by ten.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { systemClock } from '../../src/core/clock';
import { silentLogger } from '../../src/core/logger';
import type { ServerConfig } from '../../src/core/model';
import { createRegistry } from '../../src/core/monitor';
import { defaultMonitorSettings } from '../../src/core/monitorTypes';
import { createNodeConnector } from '../../src/mcp';
import { startFaultHttp, type RunningServer } from '../helpers/servers';
import { waitUntil } from '../helpers/wait';
import { countingConnector, serverConfig } from './faults/harness';

const SOAK = process.env.MCP_HEALTH_SOAK === '1' ? 10 : 1;
const CYCLES = { stdio: 200 * SOAK, http: 400 * SOAK, sse: 400 * SOAK };
/** Servers per transport cycled side by side: the concurrency of the run. */
const LANES = 2;
const TINY_STDIO = { command: process.execPath, args: [path.join(__dirname, 'faults', 'peers', 'tiny-stdio.mjs')] };

const FD_TOLERANCE = 8;
const PREEXISTING = new Set(allDescendants());
const HEAP_TOLERANCE_BYTES = 8 * 1024 * 1024;
const HANDLE_TOLERANCE = 4;

function exposedGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  // Works whether or not node was started with --expose-gc.
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

/** Every live process whose parent chain leads to this one, except those already there (tsx's esbuild service). */
function descendants(): number[] {
  return allDescendants().filter((pid) => !PREEXISTING.has(pid));
}

function allDescendants(): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may contain spaces and parentheses: the fields after the last ')' are reliable.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      parentOf.set(Number(entry), Number(fields[1]));
    } catch {
      // Exited while we looked.
    }
  }
  const result: number[] = [];
  for (const pid of parentOf.keys()) {
    for (let current = parentOf.get(pid), hops = 0; current !== undefined && hops < 64; current = parentOf.get(current), hops++) {
      if (current === process.pid) {
        result.push(pid);
        break;
      }
    }
  }
  return result;
}

/** Active handles by type, without the ones the test runner itself keeps. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

async function settleGc(gc: () => void): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

void describe('leaks', () => {
  void it(
    `${CYCLES.stdio + CYCLES.http + CYCLES.sse} connect/disconnect cycles leave nothing behind`,
    { timeout: 600_000 * SOAK },
    async (t) => {
      const gc = exposedGc();
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      const servers: RunningServer[] = [];
      const fdsAtStart = openFds();
      try {
        for (let lane = 0; lane < LANES; lane++) {
          servers.push(await startFaultHttp('http', 'none', ['--max-lifetime-ms', String(900_000 * SOAK)]));
          servers.push(await startFaultHttp('sse', 'none', ['--max-lifetime-ms', String(900_000 * SOAK)]));
        }
        const configs: ServerConfig[] = [];
        for (let lane = 0; lane < LANES; lane++) {
          configs.push(serverConfig(`stdio-${lane}`, 'stdio', TINY_STDIO));
          configs.push(serverConfig(`http-${lane}`, 'http', servers[lane * 2].url));
          configs.push(serverConfig(`sse-${lane}`, 'sse', servers[lane * 2 + 1].url));
        }

        const runCycles = async (cyclesPerLane: Record<'stdio' | 'http' | 'sse', number>) => {
          const connector = countingConnector(createNodeConnector());
          const registry = createRegistry({
            connector,
            clock: systemClock,
            logger: silentLogger,
            // Keepalive timers are armed on every connection, but never fire during a cycle.
            settings: { ...defaultMonitorSettings, intervalMs: { stdio: 60_000, http: 60_000, sse: 60_000 } },
          });
          registry.setServers(configs, []);
          registry.start();
          const failures: string[] = [];
          await Promise.all(
            configs.map(async (config) => {
              for (let cycle = 0; cycle < cyclesPerLane[config.transport]; cycle++) {
                await registry.reconnect(config.id);
                const probe = (await registry.pingNow(config.id)).get(config.id);
                if (probe?.outcome !== 'ok') failures.push(`${config.name} cycle ${cycle}: ${probe?.outcome} ${probe?.detail ?? ''}`);
              }
            }),
          );
          await registry.dispose();
          return { attempts: connector.attempts.length, connections: connector.connections.length, failures };
        };

        // Warm up so lazily loaded modules, JIT code and the HTTP agent's pools are part of the baseline.
        await runCycles({ stdio: 3, http: 5, sse: 5 });
        await waitUntil(() => descendants().length === LANES * 2, 10_000, 50);
        const baseline = { fds: openFds(), heap: await settleGc(gc), resources: activeResources(), children: descendants().length };

        const started = performance.now();
        const perLane = { stdio: CYCLES.stdio / LANES, http: CYCLES.http / LANES, sse: CYCLES.sse / LANES };
        const run = await runCycles(perLane);
        const elapsedMs = performance.now() - started;

        for (const server of servers.splice(0)) await server.stop();
        const noChildren = await waitUntil(() => descendants().length === 0, 10_000, 50);
        // Sockets in the pool close a moment after their last request; give them that moment, no more.
        await waitUntil(() => openFds() <= baseline.fds, 5_000, 50);
        const after = { fds: openFds(), heap: await settleGc(gc), resources: activeResources() };

        t.diagnostic(
          `cycles: ${CYCLES.stdio} stdio + ${CYCLES.http} HTTP + ${CYCLES.sse} SSE in ${(elapsedMs / 1000).toFixed(1)} s; ${run.attempts} connects, ${run.connections} connections`,
        );
        t.diagnostic(
          `fds: ${fdsAtStart} at start, ${baseline.fds} before the cycles (test servers' pipes, pooled sockets), ${after.fds} after (servers stopped)`,
        );
        t.diagnostic(`heap after gc: ${(baseline.heap / 1048576).toFixed(1)} MB before, ${(after.heap / 1048576).toFixed(1)} MB after`);
        t.diagnostic(`active resources: before ${JSON.stringify(baseline.resources)}, after ${JSON.stringify(after.resources)}`);
        t.diagnostic(`child processes: ${baseline.children} before (the test servers), ${descendants().length} after`);

        assert.deepEqual(run.failures.slice(0, 5), [], `${run.failures.length} cycles failed`);
        // start() connects each server once before its first reconnect() replaces that connection.
        const cycles = CYCLES.stdio + CYCLES.http + CYCLES.sse;
        assert.ok(run.connections >= cycles && run.connections <= cycles + configs.length, `one connection per cycle: ${run.connections}`);
        assert.ok(noChildren, `processes left: ${descendants().join(', ')}`);
        // The baseline included the test servers' stdout/stderr pipes (two per server), closed since.
        assert.ok(after.fds <= baseline.fds + FD_TOLERANCE, `descriptors grew: ${baseline.fds} -> ${after.fds}`);
        assert.ok(after.fds <= fdsAtStart + FD_TOLERANCE, `descriptors grew over the whole test: ${fdsAtStart} -> ${after.fds}`);
        assert.ok(
          total(after.resources) <= total(baseline.resources) + HANDLE_TOLERANCE,
          `handles grew: ${JSON.stringify(baseline.resources)} -> ${JSON.stringify(after.resources)}`,
        );
        assert.ok((after.resources.Timeout ?? 0) <= (baseline.resources.Timeout ?? 0) + HANDLE_TOLERANCE, 'timers grew');
        assert.ok(
          after.heap - baseline.heap <= HEAP_TOLERANCE_BYTES,
          `heap grew by ${((after.heap - baseline.heap) / 1048576).toFixed(1)} MB`,
        );
        const listenerWarnings = warnings.filter((w) => w.name === 'MaxListenersExceededWarning');
        assert.deepEqual(
          listenerWarnings.map((w) => w.message),
          [],
          'listener warnings',
        );
      } finally {
        process.off('warning', onWarning);
        for (const server of servers) await server.stop();
      }
    },
  );
});
