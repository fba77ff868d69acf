// `npm run bench` / `npm run bench:quick`: measures the monitor against raw exchanges, protocol bounds and a naive
// baseline, all in the same run on 127.0.0.1, prints one table and writes bench/results/latest.json.
// Flags: --quick (about two minutes), --only=probe,detection,scale,extension,metrics,guard,deep,history,codelens,serve,starts, --profile (CPU profiles of the scale workers and of the metrics section's scrapes).
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from './lib/context';
import { withDeadline } from './lib/context';
import { machineInfo } from './lib/machine';
import { loadOurs, type Ours } from './lib/ours';
import { resultsDir } from './lib/paths';
import { killAllStarted } from './lib/processes';
import { figureForJson, held, notMeasured, renderTable, type Skipped } from './lib/report';
import { codeLensCost } from './sections/codeLens';
import { deepCheckCost } from './sections/deepCheck';
import { detectionLatency } from './sections/detection';
import { extensionCost } from './sections/extension';
import { metricsCost } from './sections/metrics';
import { guardCost } from './sections/guard';
import { historyCost } from './sections/history';
import { manyStarts } from './sections/manyStarts';
import { probeOverhead } from './sections/probeOverhead';
import { scale } from './sections/scale';
import { serveProbeCost } from './sections/serveProbe';

/**
 * `expects`: the start of the name of every figure with a target the section must report in both modes. A section that
 * throws, or ends without one of them, has not measured it: the figure is added as not measured and counts as missed,
 * so a broken section can never pass as a short table.
 */
type Section = {
  readonly name: string;
  readonly budgetMs: { quick: number; full: number };
  readonly expects: readonly string[];
  /** Targeted figures only the full mode measures. */
  readonly expectsInFull?: readonly string[];
  readonly run: (context: BenchContext, ours: Ours) => Promise<void>;
};

const sections: readonly Section[] = [
  { name: 'probe', budgetMs: { quick: 30_000, full: 120_000 }, expects: ['http probe p50', 'stdio probe p50'], run: probeOverhead },
  {
    name: 'detection',
    budgetMs: { quick: 60_000, full: 240_000 },
    expects: [
      'stdio hung (SIGSTOP): worst',
      'http hung (peer SIGSTOP): worst',
      'stdio child exit (SIGKILL): worst',
      'http refused at connect: worst',
      'http peer killed, refused at next probe: worst',
      'stdio child exit (SIGKILL): recovery',
      'stdio child exit (SIGKILL): longest backoff chosen',
      'stdio hung (SIGSTOP): recovery',
      'stdio hung (SIGSTOP): longest backoff chosen',
    ],
    run: detectionLatency,
  },
  {
    name: 'scale',
    budgetMs: { quick: 60_000, full: 1_200_000 },
    expects: [],
    expectsInFull: ['500 @ 1 s: CPU per probe', '500 @ 20 s: CPU per probe', '1000 @ 30 s: CPU'],
    run: scale,
  },
  {
    name: 'extension',
    budgetMs: { quick: 60_000, full: 120_000 },
    expects: ['bundle extension.js (minified)', 'activate() returns (p50', 'first status shown', 'VSIX size'],
    run: extensionCost,
  },
  { name: 'metrics', budgetMs: { quick: 90_000, full: 900_000 }, expects: [], run: metricsCost },
  {
    name: 'guard',
    budgetMs: { quick: 45_000, full: 180_000 },
    expects: [
      'stdio request p50 through the guard',
      'burst of 10000 pings through the guard',
      'guard process RSS, idle',
      'guard process RSS after the bursts',
      'upstream death to a working upstream',
    ],
    run: (context) => guardCost(context),
  },
  { name: 'deep', budgetMs: { quick: 60_000, full: 120_000 }, expects: [], run: deepCheckCost },
  { name: 'history', budgetMs: { quick: 60_000, full: 120_000 }, expects: [], run: historyCost },
  { name: 'codelens', budgetMs: { quick: 30_000, full: 60_000 }, expects: [], run: codeLensCost },
  { name: 'serve', budgetMs: { quick: 60_000, full: 120_000 }, expects: [], run: serveProbeCost },
  {
    name: 'starts',
    budgetMs: { quick: 150_000, full: 420_000 },
    expects: ['15 stdio servers at once, default settings: all up', '15 stdio servers at once: shown down or timed out'],
    run: manyStarts,
  },
];

function parseArgs(argv: readonly string[]): { quick: boolean; only: Set<string> | null; profile: boolean } {
  const onlyArg = argv.find((arg) => arg.startsWith('--only='));
  return {
    quick: argv.includes('--quick'),
    profile: argv.includes('--profile'),
    only: onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : null,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const startedAt = new Date();
  const began = performance.now();
  const machine = machineInfo();
  const context: BenchContext = {
    quick: args.quick,
    profile: args.profile,
    figures: [],
    skipped: [],
    raw: {},
    log: (message) => process.stderr.write(`[bench ${((performance.now() - began) / 1000).toFixed(1)}s] ${message}\n`),
  };
  const ours = await loadOurs();
  const failed: Skipped[] = [];
  for (const section of sections) {
    if (args.only && !args.only.has(section.name)) continue;
    const budget = args.quick ? section.budgetMs.quick : section.budgetMs.full;
    context.log(`section ${section.name} (budget ${budget / 1000} s)`);
    try {
      await withDeadline(section.name, budget, () => section.run(context, ours));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      failed.push({ section: section.name, reason });
      context.log(`section ${section.name} failed: ${error instanceof Error ? error.stack : reason}`);
    } finally {
      await killAllStarted();
    }
    const expects = args.quick ? section.expects : [...section.expects, ...(section.expectsInFull ?? [])];
    context.figures.push(...notMeasured(section.name, expects, context.figures));
  }
  const table = renderTable(context.figures, context.skipped, failed);
  process.stdout.write(`\n${table}\n`);
  const missed = context.figures.filter((figure) => held(figure) === false);
  const results = {
    startedAt: startedAt.toISOString(),
    durationSeconds: Math.round((performance.now() - began) / 100) / 10,
    mode: args.quick ? 'quick' : 'full',
    machine: { ...machine, loadAverageAtEnd: loadavg().map((value) => Math.round(value * 100) / 100) },
    figures: context.figures.map(figureForJson),
    missedTargets: missed.map((figure) => `${figure.section}: ${figure.name}`),
    skipped: context.skipped,
    failedSections: failed,
    raw: context.raw,
  };
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, 'latest.json');
  writeFileSync(file, `${JSON.stringify(results, null, 1)}\n`);
  process.stdout.write(
    `\n${context.figures.length} figures, ${missed.length} targets missed, ${failed.length} sections failed, ${context.skipped.length} skipped; ${results.durationSeconds} s; written to ${file}\n`,
  );
  // A missed target or a failed section is a failed bench: nothing reads "held" from a run that did not hold.
  if (missed.length > 0 || failed.length > 0) process.exitCode = 1;
}

process.on('SIGINT', () => {
  void killAllStarted().finally(() => process.exit(130));
});

main()
  .catch(async (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
    await killAllStarted();
  })
  .finally(() => {
    // Leftover sockets or timers inside the code under test must not keep the bench alive.
    setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
  });
