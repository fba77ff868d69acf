// 15 real stdio servers started at once with default settings, through the registry the CLI and the extension build
// (start-up budget, bounded concurrent starts): time until every one is up, against the same servers started one at a
// time by bare spawn + initialize in the same run; and whether any was ever shown down or timed out meanwhile.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ServerConfig } from '../../src/core/model';
import type { MonitorEvent } from '../../src/core/monitorTypes';
import { concurrentStarts } from '../../src/mcp/concurrentStarts';
import { stdioFaultServer } from '../lib/configs';
import type { BenchContext } from '../lib/context';
import { EventLog, stateTo } from '../lib/eventLog';
import { defaultRegistry, type Ours } from '../lib/ours';
import { repoRoot } from '../lib/paths';
import { initializeRaw, spawnRawStdio } from '../lib/rawStdio';
import { summarize } from '../lib/stats';

const SERVERS = 15;
const TARGET_RATIO = 1.2;
const EVERYTHING_ENTRY = join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

/**
 * Two real servers, alternating: the MCP reference server (`@modelcontextprotocol/server-everything`, the published
 * package, stdio) and the SDK 1.x server of the test fixtures (`fault-server.mjs`, no fault).
 */
function servers(): ServerConfig[] {
  return Array.from({ length: SERVERS }, (_, index) => {
    if (index % 2 === 1) return stdioFaultServer(`start-${index}`);
    const base = stdioFaultServer(`start-${index}`);
    return { ...base, command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] };
  });
}

/** The floor: each server spawned bare and timed to its answer to initialize, one after the other; the sum. */
async function oneAtATime(configs: readonly ServerConfig[]): Promise<number[]> {
  const times: number[] = [];
  for (const config of configs) {
    const start = performance.now();
    const peer = spawnRawStdio(config.command as string, config.args as string[]);
    try {
      await initializeRaw(peer, '2025-06-18');
      times.push(performance.now() - start);
    } finally {
      await peer.close();
    }
  }
  return times;
}

/** A server shown down, given up on, or failed by a timeout, at any moment of the start. */
function shownFailed(ids: ReadonlySet<string>) {
  return (event: MonitorEvent): boolean => {
    if (event.type !== 'state' && event.type !== 'status') return false;
    if (!ids.has(event.id)) return false;
    if (event.type === 'state' && (event.to === 'down' || event.to === 'gave-up')) return true;
    return event.status.state !== 'up' && event.status.lastError?.kind === 'timeout';
  };
}

interface Round {
  readonly allUpMs: number;
  readonly upMs: Record<string, number>;
  readonly failedTransitions: readonly string[];
}

async function atOnce(ours: Ours, configs: readonly ServerConfig[], budgetMs: number): Promise<Round> {
  // As src/cli.ts and src/vscode build it: default settings, the start slots of this machine.
  const registry = defaultRegistry(ours, { maxConcurrentStarts: concurrentStarts() });
  const log = new EventLog(registry);
  const ids = new Set(configs.map((config) => config.id));
  try {
    const start = performance.now();
    registry.setServers(configs, []);
    registry.start();
    const ups = await Promise.all(configs.map((config) => log.waitFor(stateTo(config.id, 'up'), budgetMs, 0, `${config.name} up`)));
    const failed = shownFailed(ids);
    const failedTransitions = log.events
      .filter((stamped) => failed(stamped.event))
      .map((stamped) => {
        const event = stamped.event as Extract<MonitorEvent, { type: 'state' | 'status' }>;
        return `${Math.round(stamped.t - start)} ms ${event.id}: ${event.type === 'state' ? `${event.from} -> ${event.to}: ${event.reason}` : `${event.status.state}, ${event.status.lastError?.message ?? ''}`}`;
      });
    return {
      allUpMs: Math.max(...ups.map((stamped) => stamped.t)) - start,
      upMs: Object.fromEntries(configs.map((config, index) => [config.name, Math.round(ups[index].t - start)])),
      failedTransitions,
    };
  } finally {
    log.dispose();
    await registry.dispose();
  }
}

export async function manyStarts(context: BenchContext, ours: Ours): Promise<void> {
  const configs = servers();
  const rounds = context.quick ? 1 : 3;
  const slots = concurrentStarts();
  const budgetMs = Math.max(ours.defaultMonitorSettings.startupTimeoutMs ?? 60_000, 60_000) * 2;
  context.log(
    `starts: ${SERVERS} stdio servers, ${slots} concurrent starts, start-up budget ${ours.defaultMonitorSettings.startupTimeoutMs ?? '-'} ms`,
  );
  // Unmeasured: the file cache warm for both contenders.
  await oneAtATime(configs.slice(0, 2));
  const bare: number[] = [];
  const ourRounds: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so neither always runs on the cooler machine.
    if (round % 2 === 0) {
      bare.push(sum(await oneAtATime(configs)));
      ourRounds.push(await atOnce(ours, configs, budgetMs));
    } else {
      ourRounds.push(await atOnce(ours, configs, budgetMs));
      bare.push(sum(await oneAtATime(configs)));
    }
  }
  const failedTransitions = ourRounds.flatMap((round) => round.failedTransitions);
  context.raw['starts'] = { servers: SERVERS, concurrentStarts: slots, bareOneAtATimeMs: bare, rounds: ourRounds };
  context.figures.push(
    {
      section: 'starts',
      name: `${SERVERS} stdio servers at once, default settings: all up (median of ${rounds})`,
      value: summarize(ourRounds.map((round) => round.allUpMs)).p50,
      unit: 'ms',
      reference: { name: 'one at a time, bare spawn+initialize (sum, median)', value: summarize(bare).p50 },
      target: { max: TARGET_RATIO, on: 'ratio' },
    },
    {
      section: 'starts',
      name: `${SERVERS} stdio servers at once: shown down or timed out (${rounds} rounds)`,
      value: failedTransitions.length,
      unit: '',
      reference: null,
      target: { max: 0, on: 'value' },
    },
  );
  for (const line of failedTransitions.slice(0, 10)) context.log(`starts: shown failed: ${line}`);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
