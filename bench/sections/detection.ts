// 2. Detection latency, many trials, against the protocol's bounds, through the real registry and connector.
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../src/core/logger';
import type { ServerConfig } from '../../src/core/model';
import type { MonitorEvent, MonitorRegistry, MonitorSettings } from '../../src/core/monitorTypes';
import { backoffCap } from '../../src/core/monitor/backoff';
import { httpServer, stdioFaultServer } from '../lib/configs';
import type { BenchContext } from '../lib/context';
import { EventLog, leftUp, stateTo } from '../lib/eventLog';
import { benchSettings, clientInfo, type Ours } from '../lib/ours';
import { restartHttpPeerOn, startHttpPeer, type HttpPeer } from '../lib/peers';
import { freePort, sleep, spawnTracked } from '../lib/processes';
import { initializeRaw, spawnRawStdio } from '../lib/rawStdio';
import { summarize } from '../lib/stats';

const INTERVAL_MS = 1000;
const TIMEOUT_MS = 500;
const HANG_BOUND_MS = INTERVAL_MS + TIMEOUT_MS + 100;
const EXIT_BOUND_MS = 50;
/** A backoff timer fires a few ms after its delay and the state event follows; the bound allows for that, no more. */
const TIMER_SLACK_MS = 10;

interface Monitored {
  readonly registry: MonitorRegistry;
  readonly log: EventLog;
  /** The registry's own info/warn/error lines, time-stamped: they say which backoff delay was drawn. */
  readonly lines: { t: number; text: string }[];
}

function recordingLogger(lines: { t: number; text: string }[]): Logger {
  const keep = (text: string): void => {
    if (lines.length < 10_000) lines.push({ t: performance.now(), text });
  };
  return { trace: () => undefined, debug: () => undefined, info: keep, warn: keep, error: keep };
}

interface Trial {
  readonly detectMs: number;
  readonly detectedAs: string;
  readonly recoveryMs?: number;
  readonly recoveryBoundMs?: number;
  readonly failedAttemptsBeforeReturn?: number;
  /** The successful reconnect's own duration (`connecting` to `up`). */
  readonly connectMs?: number;
  /** State changes from down to up, ms after the server returned: shows where a slow recovery spent its time. */
  readonly recoveryPath?: readonly string[];
  /** The back-off delay the monitor drew before the attempt that succeeded, from the status it announced. */
  readonly chosenBackoffMs?: number;
  /** The lowest back-off step whose range (full jitter: 0 up to its cap) holds that delay; 0 is the initial step. */
  readonly backoffStep?: number;
  /** How long after the delay ran out the previous process was still going (the reconnect waits for it). */
  readonly closeWaitMs?: number;
}

/** When a process is gone (polled: the bench is not its parent), as performance.now(); bounded. */
async function whenGone(pid: number, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return performance.now();
    }
    if (performance.now() > deadline) throw new Error(`process ${pid} still alive after ${timeoutMs} ms`);
    await sleep(2);
  }
}

async function withRegistry<T>(
  ours: Ours,
  settings: MonitorSettings,
  servers: readonly ServerConfig[],
  body: (monitored: Monitored) => Promise<T>,
): Promise<T> {
  const lines: { t: number; text: string }[] = [];
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  const registry = ours.createRegistry({ connector, clock: ours.systemClock, logger: recordingLogger(lines), settings });
  const log = new EventLog(registry);
  registry.setServers(servers, []);
  registry.start();
  try {
    return await body({ registry, log, lines });
  } finally {
    log.dispose();
    await registry.dispose();
  }
}

async function untilUp({ registry, log }: Monitored, id: string, timeoutMs: number): Promise<void> {
  const from = log.events.length;
  if (registry.get(id)?.state === 'up') return;
  await log.waitFor(stateTo(id, 'up'), timeoutMs, from, `${id} up`);
}

/**
 * Up, then a random moment of the probe cycle: a fault must land anywhere between two probes, not right after one.
 * Returns where in the event log the trial's events start.
 */
async function upAtRandomPhase(monitored: Monitored, id: string): Promise<number> {
  await untilUp(monitored, id, 15_000);
  await sleep(Math.random() * INTERVAL_MS);
  return monitored.log.events.length;
}

/**
 * Up and answering: one probe answered since the last connect. The monitor resets its backoff only then, so a server
 * killed right after connecting is (rightly) treated as crash-looping; real crashes come after a healthy stretch.
 */
async function untilHealthy(monitored: Monitored, id: string, timeoutMs: number): Promise<void> {
  await untilUp(monitored, id, timeoutMs);
  let upIndex = monitored.log.events.length - 1;
  while (upIndex > 0 && !stateTo(id, 'up')(monitored.log.events[upIndex].event)) upIndex--;
  await monitored.log.waitFor(
    (event) => event.type === 'probe' && event.id === id && event.result.outcome === 'ok',
    timeoutMs,
    Math.max(0, upIndex),
    `${id} healthy`,
  );
}

function pidOf(registry: MonitorRegistry, id: string): number {
  const pid = registry.get(id)?.pid;
  if (typeof pid !== 'number') throw new Error(`${id} has no pid while up`);
  return pid;
}

/** Connect time as the registry pays it on a reconnect (era already known), measured in this run. */
async function connectTimes(ours: Ours, config: ServerConfig, samples: number): Promise<number[]> {
  const connector = ours.createNodeConnector({ logger: ours.silentLogger, clientInfo });
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    const connection = await connector.connect(config, { timeoutMs: 10_000, eraHint: 'handshake' });
    times.push(performance.now() - start);
    await connection.close();
  }
  return times;
}

/** The OS floor for exit detection: the same server spawned bare, SIGKILLed, timed to Node's 'exit' event. */
async function bareExitLatency(config: ServerConfig): Promise<number> {
  const child = spawnTracked(config.command as string, config.args as string[], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout?.resume();
  child.stderr?.resume();
  // The fixture announces itself on stderr once its transport is set up.
  await Promise.race([once(child.stderr as NodeJS.ReadableStream, 'data'), sleep(5000)]);
  const exited = once(child, 'exit');
  const killedAt = performance.now();
  child.kill('SIGKILL');
  await Promise.race([exited, sleep(5000)]);
  return performance.now() - killedAt;
}

/** The floor for a stdio connect: the same server spawned bare, timed to its answer to initialize. */
async function bareSpawnInitialize(config: ServerConfig): Promise<number> {
  const start = performance.now();
  const peer = spawnRawStdio(config.command as string, config.args as string[]);
  try {
    await initializeRaw(peer, '2025-06-18');
    return performance.now() - start;
  } finally {
    await peer.close();
  }
}

/** The floor for a refused connect: a bare fetch to the same closed port. */
async function bareRefusedLatency(url: string): Promise<number> {
  const start = performance.now();
  await fetch(url, { method: 'POST', body: '{}' }).catch(() => undefined);
  return performance.now() - start;
}

/** Where a reconnect attempt starts: a state change to `connecting`/`starting`, or, for a server left `down` while it is
 * retried, the status event the monitor sends as the attempt starts (`reconnecting`). */
function attemptStarts(id: string) {
  return (event: MonitorEvent): boolean =>
    'id' in event &&
    event.id === id &&
    ((event.type === 'state' && (event.to === 'connecting' || event.to === 'starting')) ||
      (event.type === 'status' && event.reconnecting === true));
}

/**
 * Recovery: from the moment the server can be reached again to the registry's `up`. The bound is one back-off step,
 * the one the monitor really chose for the attempt that succeeded (the delay it drew is read from the status it
 * announced, `nextRetryAt`; the step is the lowest whose range holds that delay, so an escalated step is compared with
 * itself, not with the first one), plus that attempt's own duration (its start to `up`), plus the timer's slack.
 */
async function recovery(
  monitored: Monitored,
  id: string,
  returnedAt: number,
  downIndex: number,
  backoff: MonitorSettings['backoff'],
  previousGone?: Promise<number>,
): Promise<
  Pick<
    Trial,
    | 'recoveryMs'
    | 'recoveryBoundMs'
    | 'failedAttemptsBeforeReturn'
    | 'recoveryPath'
    | 'connectMs'
    | 'chosenBackoffMs'
    | 'backoffStep'
    | 'closeWaitMs'
  >
> {
  const up = await monitored.log.waitFor(stateTo(id, 'up'), 30_000, downIndex, `${id} recovery`);
  const trial = monitored.log.events
    .slice(downIndex)
    .filter((stamped) => stamped.event.type !== 'stderr' && 'id' in stamped.event && stamped.event.id === id && stamped.t <= up.t);
  const lastAttempt = [...trial].reverse().find((stamped) => attemptStarts(id)(stamped.event));
  if (!lastAttempt) throw new Error(`${id}: no reconnect attempt seen before up`);
  const connectMs = up.t - lastAttempt.t;
  const scheduled = [...trial]
    .reverse()
    .find(
      (stamped) =>
        stamped.t <= lastAttempt.t &&
        stamped.event.type === 'status' &&
        !stamped.event.reconnecting &&
        typeof stamped.event.status.nextRetryAt === 'number',
    );
  if (!scheduled || scheduled.event.type !== 'status')
    throw new Error(`${id}: the reconnect that succeeded was never announced with its retry time`);
  const chosenBackoffMs = Math.max(0, (scheduled.event.status.nextRetryAt as number) - scheduled.wall);
  // A reconnect waits for the previous process to be gone (never two instances of one server): when that took longer
  // than the delay (a stopped process cannot honour the stdin-close grace), the wait is part of the bound, and named.
  const goneAt = previousGone ? await previousGone : undefined;
  const closeWaitMs = goneAt === undefined ? 0 : Math.max(0, goneAt - (scheduled.t + chosenBackoffMs));
  const recoveryPath = trial
    .filter((stamped) => stamped.event.type === 'state')
    .map((stamped) =>
      stamped.event.type === 'state' ? `${Math.round(stamped.t - returnedAt)} ms ${stamped.event.to}: ${stamped.event.reason}` : '',
    )
    .concat(
      monitored.lines
        .filter((line) => line.t >= monitored.log.events[downIndex].t && line.t <= up.t)
        .map((line) => `${Math.round(line.t - returnedAt)} ms log: ${line.text}`),
    );
  // Attempts that started before the server was back could only fail.
  const failed = monitored.log.countSince(downIndex, returnedAt, attemptStarts(id));
  const backoffStep = backoffStepOf(chosenBackoffMs, backoff);
  return {
    recoveryMs: up.t - returnedAt,
    recoveryBoundMs: backoffCap(backoffStep, backoff) + closeWaitMs + connectMs + TIMER_SLACK_MS,
    connectMs,
    closeWaitMs,
    chosenBackoffMs,
    backoffStep,
    failedAttemptsBeforeReturn: failed,
    recoveryPath,
  };
}

/** The first step whose range (full jitter: 0 up to its cap) holds the delay: 0 = the initial step. */
function backoffStepOf(delayMs: number, backoff: MonitorSettings['backoff']): number {
  let step = 0;
  while (delayMs >= backoffCap(step, backoff) && backoffCap(step + 1, backoff) > backoffCap(step, backoff)) step++;
  return step;
}

function report(
  context: BenchContext,
  scenario: string,
  trials: readonly Trial[],
  boundMs: number,
  boundName: string,
  backoff: MonitorSettings['backoff'],
  firstAttemptSucceeds: boolean,
  floorMs?: readonly number[],
): void {
  context.raw[`detection.${scenario}`] = { boundMs, boundName, trials, ...(floorMs ? { bareFloorMs: floorMs } : {}) };
  const detect = summarize(trials.map((trial) => trial.detectMs));
  context.figures.push(
    {
      section: 'detection',
      name: `${scenario}: worst of ${trials.length}`,
      value: detect.max,
      unit: 'ms',
      reference: { name: boundName, value: boundMs },
      target: { max: 1, on: 'ratio' },
    },
    {
      section: 'detection',
      name: `${scenario}: p50`,
      value: detect.p50,
      unit: 'ms',
      reference: { name: boundName, value: boundMs },
      target: null,
    },
  );
  if (floorMs && floorMs.length > 0) {
    const floor = summarize(floorMs);
    context.figures.push(
      {
        section: 'detection',
        name: `${scenario}: p50 vs bare OS floor`,
        value: detect.p50,
        unit: 'ms',
        reference: { name: 'bare floor p50', value: floor.p50 },
        target: null,
      },
      {
        section: 'detection',
        name: `${scenario}: worst vs bare OS floor`,
        value: detect.max,
        unit: 'ms',
        reference: { name: 'bare floor worst', value: floor.max },
        target: null,
      },
    );
  }
  const recovered = trials.filter((trial) => trial.recoveryMs !== undefined && trial.recoveryBoundMs !== undefined);
  if (recovered.length === 0) return;
  const worst = recovered.reduce((a, b) =>
    (a.recoveryMs as number) / (a.recoveryBoundMs as number) >= (b.recoveryMs as number) / (b.recoveryBoundMs as number) ? a : b,
  );
  context.figures.push({
    section: 'detection',
    name: `${scenario}: recovery, worst of ${recovered.length}`,
    value: worst.recoveryMs as number,
    unit: 'ms',
    reference: {
      name: `backoff step ${worst.backoffStep ?? '?'} ${backoffCap(worst.backoffStep ?? 0, backoff)} (drew ${Math.round(worst.chosenBackoffMs ?? 0)})${worst.closeWaitMs ? ` + old process closing ${Math.round(worst.closeWaitMs)}` : ''} + this connect ${Math.round(worst.connectMs ?? 0)} + 10`,
      value: worst.recoveryBoundMs as number,
    },
    target: { max: 1, on: 'ratio' },
  });
  if (!firstAttemptSucceeds) return;
  // Each incident follows an answered probe and its first reconnect succeeds: the monitor must recover it from the
  // initial step, however many trials came before (a grown step would mean the kills escalated the back-off).
  const steps = recovered.map((trial) => trial.backoffStep ?? 0);
  const longest = Math.max(...recovered.map((trial) => trial.chosenBackoffMs ?? 0));
  context.figures.push({
    section: 'detection',
    name: `${scenario}: longest backoff chosen (steps ${steps.join(',')})`,
    value: longest,
    unit: 'ms',
    reference: { name: 'initial step', value: backoffCap(0, backoff) },
    target: { max: 1, on: 'ratio' },
  });
}

async function hungStdio(context: BenchContext, ours: Ours, settings: MonitorSettings, trials: number): Promise<void> {
  const config = stdioFaultServer('hang-stdio');
  const results: Trial[] = [];
  await withRegistry(ours, settings, [config], async (monitored) => {
    for (let i = 0; i < trials; i++) {
      const from = await upAtRandomPhase(monitored, config.id);
      const pid = pidOf(monitored.registry, config.id);
      const stoppedAt = performance.now();
      process.kill(pid, 'SIGSTOP');
      try {
        const down = await monitored.log.waitFor(leftUp(config.id), HANG_BOUND_MS * 4, from, 'hang detection');
        const downIndex = monitored.log.events.indexOf(down);
        const gone = whenGone(pid);
        // Awaited inside recovery(); a recovery that fails first must not leave its rejection unhandled.
        gone.catch(() => undefined);
        results.push({
          detectMs: down.t - stoppedAt,
          detectedAs: down.event.type === 'state' ? down.event.to : '?',
          ...(await recovery(monitored, config.id, down.t, downIndex, settings.backoff, gone)),
        });
      } finally {
        // Only now: a wedged server is not continued in real life, so recovery above had to get rid of it on its own.
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          /* already reaped */
        }
      }
    }
  });
  report(context, 'stdio hung (SIGSTOP)', results, HANG_BOUND_MS, 'interval+timeout+100', settings.backoff, true);
}

async function hungHttp(context: BenchContext, ours: Ours, settings: MonitorSettings, trials: number): Promise<void> {
  const peer = await startHttpPeer();
  const config = httpServer('hang-http', peer.url);
  const results: Trial[] = [];
  try {
    await withRegistry(ours, settings, [config], async (monitored) => {
      for (let i = 0; i < trials; i++) {
        const from = await upAtRandomPhase(monitored, config.id);
        const stoppedAt = performance.now();
        peer.stop();
        let down;
        try {
          down = await monitored.log.waitFor(leftUp(config.id), HANG_BOUND_MS * 4, from, 'hang detection');
        } finally {
          peer.resume();
        }
        const resumedAt = performance.now();
        const downIndex = monitored.log.events.indexOf(down);
        results.push({
          detectMs: down.t - stoppedAt,
          detectedAs: down.event.type === 'state' ? down.event.to : '?',
          ...(await recovery(monitored, config.id, resumedAt, downIndex, settings.backoff)),
        });
      }
    });
  } finally {
    await peer.kill();
  }
  report(context, 'http hung (peer SIGSTOP)', results, HANG_BOUND_MS, 'interval+timeout+100', settings.backoff, false);
}

async function stdioExit(context: BenchContext, ours: Ours, settings: MonitorSettings, trials: number): Promise<void> {
  const config = stdioFaultServer('exit-stdio');
  const results: Trial[] = [];
  const floor: number[] = [];
  await withRegistry(ours, settings, [config], async (monitored) => {
    for (let i = 0; i < trials; i++) {
      await untilHealthy(monitored, config.id, 15_000);
      floor.push(await bareExitLatency(config));
      await sleep(Math.random() * 200);
      const pid = pidOf(monitored.registry, config.id);
      const from = monitored.log.events.length;
      const killedAt = performance.now();
      process.kill(pid, 'SIGKILL');
      const down = await monitored.log.waitFor(leftUp(config.id), 5000, from, 'exit detection');
      const downIndex = monitored.log.events.indexOf(down);
      results.push({
        detectMs: down.t - killedAt,
        detectedAs: down.event.type === 'state' ? `${down.event.to}: ${down.event.reason}` : '?',
        ...(await recovery(monitored, config.id, down.t, downIndex, settings.backoff)),
      });
    }
  });
  report(context, 'stdio child exit (SIGKILL)', results, EXIT_BOUND_MS, 'exit bound', settings.backoff, true, floor);
}

async function refusedConnect(context: BenchContext, ours: Ours, settings: MonitorSettings, trials: number): Promise<void> {
  const port = await freePort();
  const results: Trial[] = [];
  const floor: number[] = [];
  await withRegistry(ours, settings, [], async (monitored) => {
    for (let i = 0; i < trials; i++) {
      const config = httpServer(`refused-${i}`, `http://127.0.0.1:${port}/mcp`);
      floor.push(await bareRefusedLatency(config.url as string));
      const from = monitored.log.events.length;
      const addedAt = performance.now();
      monitored.registry.setServers([config], []);
      const down = await monitored.log.waitFor(stateTo(config.id, 'down'), 5000, from, 'refused detection');
      results.push({ detectMs: down.t - addedAt, detectedAs: down.event.type === 'state' ? down.event.reason : '?' });
    }
  });
  report(context, 'http refused at connect', results, EXIT_BOUND_MS, 'exit bound', settings.backoff, false, floor);
}

async function killedPeer(context: BenchContext, ours: Ours, settings: MonitorSettings, trials: number): Promise<void> {
  const port = await freePort();
  let peer: HttpPeer = await startHttpPeer(port);
  const config = httpServer('killed-http', peer.url);
  const results: Trial[] = [];
  try {
    await withRegistry(ours, settings, [config], async (monitored) => {
      for (let i = 0; i < trials; i++) {
        const from = await upAtRandomPhase(monitored, config.id);
        await peer.kill();
        const killedAt = performance.now();
        const down = await monitored.log.waitFor(leftUp(config.id), (INTERVAL_MS + EXIT_BOUND_MS) * 4, from, 'refused detection');
        const downIndex = monitored.log.events.indexOf(down);
        peer = await restartHttpPeerOn(port);
        const returnedAt = performance.now();
        results.push({
          detectMs: down.t - killedAt,
          detectedAs: down.event.type === 'state' ? `${down.event.to}: ${down.event.reason}` : '?',
          ...(await recovery(monitored, config.id, returnedAt, downIndex, settings.backoff)),
        });
      }
    });
  } finally {
    await peer.kill();
  }
  report(context, 'http peer killed, refused at next probe', results, INTERVAL_MS + EXIT_BOUND_MS, 'interval+50', settings.backoff, false);
}

export async function detectionLatency(context: BenchContext, ours: Ours): Promise<void> {
  const settings = benchSettings(ours.defaultMonitorSettings, INTERVAL_MS, TIMEOUT_MS);
  const counts = context.quick
    ? { hang: 1, exit: 3, refused: 5, killed: 1, connect: 2 }
    : { hang: 10, exit: 12, refused: 20, killed: 8, connect: 5 };
  context.log(`detection: interval ${INTERVAL_MS} ms, timeout ${TIMEOUT_MS} ms, backoff ${JSON.stringify(settings.backoff)}`);

  const stdioConfig = stdioFaultServer('connect-stdio');
  const stdioConnect = await connectTimes(ours, stdioConfig, counts.connect);
  const bareStdio: number[] = [];
  for (let i = 0; i < counts.connect; i++) bareStdio.push(await bareSpawnInitialize(stdioConfig));
  const peer = await startHttpPeer();
  const httpConnect = await connectTimes(ours, httpServer('connect-http', peer.url), counts.connect * 2).finally(() => peer.kill());
  context.raw['detection.connectMs'] = { stdio: stdioConnect, bareStdioSpawnInitialize: bareStdio, http: httpConnect };
  context.figures.push({
    section: 'detection',
    name: 'stdio reconnect (era known), p50',
    value: summarize(stdioConnect).p50,
    unit: 'ms',
    reference: { name: 'bare spawn+initialize p50', value: summarize(bareStdio).p50 },
    target: null,
  });

  await stdioExit(context, ours, settings, counts.exit);
  await refusedConnect(context, ours, settings, counts.refused);
  await hungStdio(context, ours, settings, counts.hang);
  await hungHttp(context, ours, settings, counts.hang);
  await killedPeer(context, ours, settings, counts.killed);
}
