// 3. Scale: N Streamable HTTP sessions monitored in one process: ours against the naive baseline (one SDK 1.x client
// per server, setInterval ping), the same naive client on SDK 2.x (the SDK ours is built on) and the bare node:http
// floor. Each contender is its own worker process with its own peers (bench/peers/handshake-http-peer.mjs, separate
// processes, so their cost is not counted).
// Every worker connects once with probing parked; then the 1 Hz windows run one contender at a time (the others parked,
// so they do not compete for the CPU), and the slow-interval windows run side by side (every phase starts spread, so
// no contender's probes come in bursts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BenchContext } from '../lib/context';
import { benchRoot, buildDir, repoRoot, resultsDir } from '../lib/paths';
import { startHttpPeer, type HttpPeer, type PeerStats } from '../lib/peers';
import { summarizeProfile, type ProfileSummary } from '../lib/profileSummary';
import type { Figure } from '../lib/report';
import type { Ours } from '../lib/ours';
import type { PhaseReport, ReadyReport, WorkerMode } from '../scale/worker';
import { WorkerHandle } from '../scale/workerHandle';

const PEERS_PER_WORKER = 4;
const MODES: readonly WorkerMode[] = ['ours', 'baseline', 'sdk2', 'sdk2transport', 'raw'];
/**
 * Issue 9: probes ride the SDK transport real clients use; at most the naive SDK client's CPU, not less at any price.
 * Judged per probe: the contenders do not send the same number of probes in a window (ours waits an interval after
 * each answer, setInterval does not), and at 500 servers at 1 Hz both come close to a whole core of this machine, so
 * the window's CPU share is capped and would flatter whichever sent fewer.
 */
const CPU_RATIO_TARGET = 1.0;
const CPU_AT_30S_TARGET_PERCENT = 1;
const RETAINED_KB_TARGET = 200;
const CONNECT_DEADLINE_MS = 45_000;

interface Phase {
  readonly intervalMs: number;
  readonly windowMs: number;
  readonly settleMs: number;
  /**
   * 1 Hz windows run one contender at a time, in `rounds` (each contender once a round, the order reversed every other
   * round, after one unmeasured warm-up window each): the CPU per probe of one window swings by a third on this VM
   * (a major GC, the peers, the other tenants), and rounds side by side in time cancel the drift. Slow ones run side
   * by side, `rounds` windows one after another, summed.
   */
  readonly alone: boolean;
  readonly rounds: number;
  /** One-at-a-time phases: each contender's unmeasured window before the rounds. */
  readonly warmUpMs: number;
}

interface SizePlan {
  readonly count: number;
  readonly phases: readonly Phase[];
}

interface Contender {
  readonly mode: WorkerMode;
  readonly worker: WorkerHandle;
  readonly peers: readonly HttpPeer[];
  ready?: ReadyReport;
  readonly phases: PhaseReport[];
  peerStats?: { connections: number; requests: number };
}

/**
 * How long a 1 Hz contender probes before its window. A parked contender has lost its sockets (the peers close a
 * keep-alive socket idle for 5 s, Node's default) and its first seconds reopen them: a window after 25 s parked read
 * ours 672-798 µs per probe and the SDK 1.x client 515-551, the next window 394-455 and 362-421 (2026-12-07, scratch
 * runs). With one second, a window's cost followed how long its contender had been parked, which the alternating order
 * makes anything from none to eight windows. Six seconds, a window and a round, measures every window as that second
 * one: the steady state of a monitor at 1 Hz, which never idles long enough to lose its sockets.
 */
const HZ_SETTLE_MS = 6000;

/** Warm-up windows: the first window of a fresh worker pays for its JIT (a third more per probe), for every contender. */
const WARM_UP_WINDOW_MS = 3000;

/** Slow phases with a target: five windows of one interval each, summed (one window swings by a third on this VM). */
const SLOW_ROUNDS = 5;

/**
 * The phases of each size. Every phase starts spread (bench/scale/worker.ts): each server first probed at its own
 * offset in the interval, the same offsets for every contender. What a probe costs depends on how the probes fall in
 * time more than on the client: the SDK 2.x transport alone cost 550 µs a probe with its 500 pings sent together every
 * second and 800 µs with them spread over the second, and at 20 s 1.7-2.0 ms together against 2.2-2.8 spread
 * (2026-12-07, scratch runs). Started together, setInterval keeps the naive clients' rounds bunched while ours, an
 * interval after each answer, drifts apart (at 1 Hz within seconds, at 20 s from the first round, whose answers come
 * back over a second): the comparison measured the bunching. Spread is where any monitor's probes are once its
 * servers connected at different moments, setInterval's included. A slow window of one interval still holds exactly
 * one probe of each server.
 */
function plans(quick: boolean): SizePlan[] {
  const hz = (windowMs: number, rounds: number): Phase => ({
    intervalMs: 1000,
    windowMs,
    // The quick mode is a smoke run of the section, under its minute (connecting 5 contenders takes a third of it).
    settleMs: quick ? 1000 : HZ_SETTLE_MS,
    alone: true,
    rounds,
    warmUpMs: quick ? 1000 : WARM_UP_WINDOW_MS,
  });
  // A slow window is one interval long, from T/2 to 3T/2 after the phase starts: one probe of each server.
  const slow = (intervalMs: number, rounds = 1): Phase => ({
    intervalMs,
    windowMs: intervalMs,
    settleMs: intervalMs / 2,
    alone: false,
    rounds,
    warmUpMs: 0,
  });
  if (quick) return [{ count: 100, phases: [hz(2000, 1)] }];
  // 5 s windows at 1 Hz: a round cut by either end of a window is a tenth of it. 500 at 1 Hz carries the target: four
  // rounds (20 s of each contender); the others, one.
  // At 1000 the slow interval is 30 s, the interval of the target; 20 s (the default for HTTP) is measured at 100 and
  // 500, with a target at 500. Where there is a target, five windows: one window of one probe per server read anywhere
  // from 0.97x to 2.02x the SDK 1.x client with the same code.
  return [
    { count: 100, phases: [hz(5000, 1), slow(20_000)] },
    { count: 500, phases: [hz(5000, 4), slow(20_000, SLOW_ROUNDS)] },
    { count: 1000, phases: [hz(5000, 1), slow(30_000, SLOW_ROUNDS)] },
  ];
}

/** Plain JavaScript: no TypeScript loader thread in the measured process. Packages stay in node_modules, so a CPU
 * profile can tell the SDKs apart from our bundled src/. */
async function buildWorker(): Promise<string> {
  const outfile = join(buildDir, 'scale-worker.cjs');
  await build({
    entryPoints: [join(benchRoot, 'scale', 'worker.ts')],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  });
  return outfile;
}

function profileDir(mode: string, count: number): string {
  return join(resultsDir, 'profiles', `${mode}-${count}`);
}

/** Where each worker's CPU went over its whole life (connect phase included); the main thread has the largest file. */
function profilesFor(context: BenchContext, count: number): { profiles?: Record<string, ProfileSummary> } {
  if (!context.profile) return {};
  const profiles: Record<string, ProfileSummary> = {};
  for (const mode of MODES) {
    const dir = profileDir(mode, count);
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir)
      .map((name) => join(dir, name))
      .sort((a, b) => statSync(b).size - statSync(a).size);
    if (files[0]) profiles[mode] = summarizeProfile(files[0]);
  }
  return { profiles };
}

async function startContender(context: BenchContext, script: string, mode: WorkerMode, count: number): Promise<Contender> {
  const peers: HttpPeer[] = [];
  // One by one: a dozen Node processes starting at once on a busy machine miss their own start-up bound.
  for (let i = 0; i < PEERS_PER_WORKER; i++) peers.push(await startHttpPeer(0, 30_000));
  const urls = Array.from({ length: count }, (_, index) => peers[index % peers.length].url);
  const worker = WorkerHandle.start(
    script,
    { mode, urls, connectDeadlineMs: CONNECT_DEADLINE_MS },
    `${mode}-${count}`,
    repoRoot,
    context.profile ? profileDir(mode, count) : undefined,
  );
  return { mode, worker, peers, phases: [] };
}

async function stopContender(contender: Contender): Promise<void> {
  try {
    await contender.worker.stop();
    const stats: PeerStats[] = await Promise.all(contender.peers.map((peer) => peer.stats()));
    contender.peerStats = {
      connections: stats.reduce((sum, s) => sum + s.connections, 0),
      requests: stats.reduce((sum, s) => sum + s.requests, 0),
    };
  } finally {
    await Promise.all(contender.peers.map((peer) => peer.kill()));
  }
}

/** One contender at a time: a warm-up window each, then `rounds` rounds in alternating order, summed per contender. */
async function interleavedRounds(contenders: readonly Contender[], phase: Phase): Promise<PhaseReport[]> {
  for (const contender of contenders) await contender.worker.phase({ ...phase, windowMs: phase.warmUpMs });
  const perContender: PhaseReport[][] = contenders.map(() => []);
  for (let round = 0; round < phase.rounds; round++) {
    const order = contenders.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) perContender[index].push(await contenders[index].worker.phase(phase));
  }
  return perContender.map(sumWindows);
}

/** All contenders at once, `rounds` windows one after another; several windows are summed per contender. */
async function sideBySideRounds(contenders: readonly Contender[], phase: Phase): Promise<PhaseReport[]> {
  const perContender: PhaseReport[][] = contenders.map(() => []);
  for (let round = 0; round < phase.rounds; round++) {
    const reports = await Promise.all(contenders.map((contender) => contender.worker.phase(phase)));
    reports.forEach((report, index) => perContender[index].push(report));
  }
  return perContender.map((windows) => (windows.length === 1 ? windows[0] : sumWindows(windows)));
}

/** Several windows of one contender as one: CPU, probes and time added up; the worst timer lag; the last RSS. */
function sumWindows(windows: readonly PhaseReport[]): PhaseReport {
  const sum = (pick: (window: PhaseReport) => number): number => windows.reduce((total, window) => total + pick(window), 0);
  const windowMs = sum((window) => window.windowMs);
  const cpuUserMs = sum((window) => window.cpuUserMs);
  const cpuSystemMs = sum((window) => window.cpuSystemMs);
  return {
    intervalMs: windows[0].intervalMs,
    windowMs,
    upAtWindowStart: Math.min(...windows.map((window) => window.upAtWindowStart)),
    cpuUserMs,
    cpuSystemMs,
    cpuFraction: (cpuUserMs + cpuSystemMs) / windowMs,
    probesInWindow: sum((window) => window.probesInWindow),
    failedProbesInWindow: sum((window) => window.failedProbesInWindow),
    rssBytes: windows[windows.length - 1].rssBytes,
    timerLagMs: Math.max(...windows.map((window) => window.timerLagMs)),
    failedInPhase: sum((window) => window.failedInPhase),
    leftUpInPhase: sum((window) => window.leftUpInPhase),
    perWindowProbeUs: windows.map((window) => Math.round(perProbeUs(window))),
  };
}

/** Everything the process burned in the window, spread over the probes it sent: timers and GC included. */
const perProbeUs = (phase: PhaseReport): number => ((phase.cpuUserMs + phase.cpuSystemMs) * 1000) / Math.max(1, phase.probesInWindow);
const kib = (bytes: number): number => bytes / 1024;
const mib = (bytes: number): number => bytes / 2 ** 20;
const perServerKb = (ready: ReadyReport): number => kib(ready.heapConnectedBytes - ready.heapBeforeBytes) / ready.count;

interface PhaseSet {
  readonly ours: PhaseReport;
  readonly baseline: PhaseReport;
  readonly sdk2: PhaseReport;
  readonly sdk2transport: PhaseReport;
  readonly raw: PhaseReport;
}

function phaseFigures(count: number, { ours, baseline, sdk2, sdk2transport, raw }: PhaseSet): Figure[] {
  const label = `${count} @ ${ours.intervalMs / 1000} s`;
  const windows = (phase: PhaseReport): string => (phase.perWindowProbeUs ? ` [${phase.perWindowProbeUs.join(', ')} us]` : '');
  const note = `probes in window: ours ${ours.probesInWindow} (${ours.failedProbesInWindow} failed)${windows(ours)}, baseline ${baseline.probesInWindow} (${baseline.failedProbesInWindow} failed)${windows(baseline)}, SDK 2.x ${sdk2.probesInWindow}${windows(sdk2)}, SDK 2.x transport alone ${sdk2transport.probesInWindow}${windows(sdk2transport)}, raw ${raw.probesInWindow}; up at window start ${ours.upAtWindowStart}/${baseline.upAtWindowStart}/${sdk2.upAtWindowStart}/${sdk2transport.upAtWindowStart}/${raw.upAtWindowStart}; timer lag ${Math.round(ours.timerLagMs)}/${Math.round(baseline.timerLagMs)} ms; from each phase's first round on, ours failed ${ours.failedInPhase} probes and left up ${ours.leftUpInPhase} times, baseline failed ${baseline.failedInPhase}`;
  const at30s = count === 1000 && ours.intervalMs === 30_000;
  const atTarget = count === 500 || at30s;
  const cpuTarget = at30s ? { max: CPU_AT_30S_TARGET_PERCENT, on: 'value' as const } : null;
  return [
    {
      section: 'scale',
      name: `${label}: CPU`,
      value: ours.cpuFraction * 100,
      unit: '% core',
      reference: { name: 'baseline', value: baseline.cpuFraction * 100 },
      target: cpuTarget,
      // The same probes by the SDK transport alone, the least a client bound to it can burn (principle 1; bare
      // node:http is cheaper still, but no conforming client is it): a target under that is out of reach here.
      ...(cpuTarget ? { floor: { name: 'SDK 2.x transport alone', value: sdk2transport.cpuFraction * 100 } } : {}),
      note,
    },
    {
      section: 'scale',
      name: `${label}: CPU per probe`,
      value: perProbeUs(ours),
      unit: 'us',
      reference: { name: 'baseline', value: perProbeUs(baseline) },
      target: atTarget ? { max: CPU_RATIO_TARGET, on: 'ratio' } : null,
      // Principle 1 binds every probe to the SDK transport real clients use, SDK 2.x's (the only one that speaks the
      // 2026-07-28 era): its send alone, with no monitor at all, is the least any conforming implementation pays.
      ...(atTarget ? { floor: { name: 'SDK 2.x transport alone', value: perProbeUs(sdk2transport) } } : {}),
      note,
    },
    {
      section: 'scale',
      name: `${label}: CPU per probe vs naive SDK 2.x client`,
      value: perProbeUs(ours),
      unit: 'us',
      reference: { name: 'SDK 2.x naive', value: perProbeUs(sdk2) },
      target: null,
    },
    {
      section: 'scale',
      name: `${label}: CPU per probe vs SDK 2.x transport alone`,
      value: perProbeUs(ours),
      unit: 'us',
      reference: { name: 'SDK 2.x transport alone', value: perProbeUs(sdk2transport) },
      target: null,
    },
    {
      section: 'scale',
      name: `${label}: CPU per probe vs bare node:http`,
      value: perProbeUs(ours),
      unit: 'us',
      reference: { name: 'raw floor', value: perProbeUs(raw) },
      target: null,
    },
  ];
}

function memoryFigures(count: number, ours: Contender, baseline: Contender): Figure[] {
  const o = ours.ready as ReadyReport;
  const b = baseline.ready as ReadyReport;
  const tcp = (c: Contender): string => (c.peerStats ? (c.peerStats.connections / Math.max(1, c.peerStats.requests)).toFixed(3) : '?');
  return [
    {
      section: 'scale',
      name: `${count}: connect all`,
      value: o.connectMs,
      unit: 'ms',
      reference: { name: 'baseline', value: b.connectMs },
      target: null,
      note: `up after connect: ours ${o.up}, baseline ${b.up}; TCP connections per request over the run: ours ${tcp(ours)}, baseline ${tcp(baseline)}`,
    },
    {
      section: 'scale',
      name: `${count}: RSS, connected`,
      value: mib(o.rssConnectedBytes),
      unit: 'MB',
      reference: { name: 'baseline', value: mib(b.rssConnectedBytes) },
      target: null,
    },
    {
      section: 'scale',
      name: `${count}: heap after GC / server`,
      value: perServerKb(o),
      unit: 'KB',
      reference: { name: 'baseline', value: perServerKb(b) },
      target: { max: RETAINED_KB_TARGET, on: 'value' },
    },
  ];
}

async function measureSize(context: BenchContext, script: string, plan: SizePlan): Promise<void> {
  context.log(
    `scale: ${plan.count} sessions; phases ${plan.phases.map((p) => `${p.intervalMs / 1000} s for ${p.windowMs / 1000} s${p.alone ? ' (one at a time)' : ' (side by side)'}`).join(', ')}`,
  );
  const contenders: Contender[] = [];
  try {
    // Connect storms one after another, so no contender's connect competes with another's.
    for (const mode of MODES) {
      const contender = await startContender(context, script, mode, plan.count);
      contenders.push(contender);
      contender.ready = await contender.worker.ready(CONNECT_DEADLINE_MS + 30_000);
    }
    for (const phase of plan.phases) {
      const reports = phase.alone ? await interleavedRounds(contenders, phase) : await sideBySideRounds(contenders, phase);
      reports.forEach((report, index) => contenders[index].phases.push(report));
    }
  } finally {
    await Promise.all(contenders.map((contender) => stopContender(contender)));
  }
  const [ours, baseline, sdk2, sdk2transport, raw] = contenders;
  context.raw[`scale.${plan.count}`] = {
    plan,
    contenders: contenders.map(({ mode, ready, phases, peerStats }) => ({ mode, ready, phases, peerStats })),
    ...profilesFor(context, plan.count),
  };
  context.figures.push(...memoryFigures(plan.count, ours, baseline));
  plan.phases.forEach((_, index) =>
    context.figures.push(
      ...phaseFigures(plan.count, {
        ours: ours.phases[index],
        baseline: baseline.phases[index],
        sdk2: sdk2.phases[index],
        sdk2transport: sdk2transport.phases[index],
        raw: raw.phases[index],
      }),
    ),
  );
}

export async function scale(context: BenchContext, _ours: Ours): Promise<void> {
  const script = await buildWorker();
  for (const plan of plans(context.quick)) await measureSize(context, script, plan);
  if (context.quick)
    context.skipped.push({
      section: 'scale',
      reason: 'quick mode: 100 sessions at 1 Hz only; 500/1000 and the slow intervals run in the full mode',
    });
}
