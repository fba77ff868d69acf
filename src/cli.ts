// mcp-health: the terminal front end on the same core as the extension.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCliArgs, USAGE, UsageError, type CliOptions } from './cli/args';
import { discoverConfigs } from './cli/discovery';
import { concurrentStarts } from './mcp/concurrentStarts';
import { EMPTY_BASELINE, readBaselineFile, runFails, verdicts, writeBaselineFile } from './cli/ci';
import { githubAnnotations } from './cli/githubAnnotations';
import { runGuard } from './cli/guard';
import { runServe } from './cli/serve';
import { describeGuarded, splitGuarded, type GuardedServer } from './cli/guarded';
import { junitXml } from './cli/junit';
import { cliJson, createCliOutput, type CliOutput } from './cli/output';
import { terminalSafe, terminalSafeJson } from './cli/terminalText';
import { watchSummary } from './cli/watchSummary';
import { fixedGuardReports, GuardPoller, type GuardReport, type GuardReports } from './core/guardReport';
import { describeDrift } from './core/inventory/drift';
import { HistoryRecorder, recordHistory } from './core/history';
import { HistoryAppender } from './history/historyAppender';
import { readGuardStatuses } from './mcp/guardClient';
import {
  diagnosticReport,
  formatDiagnostics,
  formatServerTable,
  serverReport,
  stateLabel,
  summaryLine,
  type ServerReport,
  type Style,
} from './cli/format';
import { untilStopped } from './cli/untilStopped';
import { systemClock } from './core/clock';
import type { DiscoveryResult } from './core/config/discover';
import { silentLogger } from './core/logger';
import type { ServerConfig, ServerStatus } from './core/model';
import { createRegistry, wakeLine } from './core/monitor';
import { defaultMonitorSettings, type MonitorEvent, type MonitorRegistry, type MonitorSettings } from './core/monitorTypes';
import { createNodeConnector } from './mcp';
import { proxiedFetch, proxyEnvironment } from './mcp/httpProxy';
import { formatListenAddress, isMetricsListenError, startMetrics, type MetricsExporter } from './metrics';
import { isHealthy } from './present/states';

const EXIT_OK = 0;
const EXIT_UNHEALTHY = 1;
const EXIT_USAGE = 2;

type Output = CliOutput;

/** Every line this CLI prints goes through the one filtering writer (src/cli/output.ts). */
const processOutput: Output = createCliOutput();

/** A mistyped --config would otherwise read as "no servers configured", the one answer that hides the typo. */
function requireConfigFiles(files: readonly string[]): void {
  for (const file of files) {
    let isFile: boolean;
    try {
      isFile = fs.statSync(file).isFile();
    } catch {
      throw new UsageError(`--config file does not exist: ${file}`);
    }
    if (!isFile) throw new UsageError(`--config is not a file: ${file}`);
  }
}

function discoverFor(options: CliOptions): Promise<DiscoveryResult> {
  requireConfigFiles(options.configFiles.map((file) => path.resolve(process.cwd(), file)));
  return discoverConfigs(options);
}

function selectServers(result: DiscoveryResult, names: readonly string[]): ServerConfig[] {
  if (names.length === 0) return result.servers;
  const known = new Set([
    ...result.servers.map((server) => server.name),
    ...result.diagnostics.flatMap((d) => (d.serverName ? [d.serverName] : [])),
  ]);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length) throw new UsageError(`no server named ${unknown.map((name) => `"${name}"`).join(', ')} was found`);
  return result.servers.filter((server) => names.includes(server.name));
}

function selectDiagnostics(result: DiscoveryResult, names: readonly string[]) {
  return names.length === 0 ? result.diagnostics : result.diagnostics.filter((d) => !d.serverName || names.includes(d.serverName));
}

/** Discovery narrowed to the servers named with --server (all when none is named). */
async function discoverSelection(options: CliOptions) {
  const result = await discoverFor(options);
  // Servers already run through `mcp-health guard` are never started here: the guard reports them.
  // They are listed (and in --json) with the running guard's figures.
  const servers = selectServers(result, options.serverNames);
  const { guarded } = splitGuarded(servers);
  return { servers, guarded, diagnostics: selectDiagnostics(result, options.serverNames) };
}

/** The guards' reports, read once, when some selected entry is guarded (no socket is touched otherwise). */
async function guardReportsFor(guarded: readonly GuardedServer[]): Promise<readonly GuardReport[]> {
  return guarded.length === 0 ? [] : readGuardStatuses();
}

/** A guarded entry whose client has not started its guard is not a failure of the check. */
function counted(report: ServerReport): boolean {
  return !(report.guarded && !report.guarded.running);
}

function monitorSettings(options: CliOptions): MonitorSettings {
  const interval = options.intervalMs;
  return {
    ...defaultMonitorSettings,
    intervalMs: interval === undefined ? defaultMonitorSettings.intervalMs : { stdio: interval, http: interval, sse: interval },
    timeoutMs: options.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
    startupTimeoutMs: options.startupTimeoutMs,
  };
}

function createMonitor(options: CliOptions, guards?: GuardReports) {
  // HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as curl reads them; loopback is always reached directly.
  const proxy = proxyEnvironment(process.env);
  return createRegistry({
    connector: createNodeConnector({
      logger: silentLogger,
      clientInfo: { name: 'mcp-health', version: CLI_VERSION },
      ...(proxy && { http: proxiedFetch(proxy) }),
    }),
    clock: systemClock,
    logger: silentLogger,
    settings: monitorSettings(options),
    maxConcurrentStarts: concurrentStarts(),
    ...(guards ? { guards } : {}),
  });
}

const EXIT_INTERRUPTED = 130;
const EXIT_TERMINATED = 143;

/**
 * stdio servers run in process groups of their own, so a Ctrl-C does not reach them: the CLI catches the signal,
 * says what it had, and closes them before leaving. `signal` settles with the signal's name; never rejects.
 */
function interruption(): { signal: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = resolve;
  });
  // `on`, not `once`: a second Ctrl-C while the servers are being closed must not kill the CLI and orphan them.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

declare const __CLI_VERSION__: string | undefined;
const CLI_VERSION = typeof __CLI_VERSION__ === 'string' ? __CLI_VERSION__ : '0.0.0-dev';

function styleFor(options: CliOptions): Style {
  const color = options.color ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR);
  return { color };
}

/** Prints the servers (and diagnostics) as one JSON document or as a table; `withHealth` adds state, RTT and era. */
function printServers(
  reports: readonly ServerReport[],
  diagnostics: DiscoveryResult['diagnostics'],
  options: CliOptions,
  output: Output,
  withHealth: boolean,
  interrupted = false,
): void {
  if (options.json) {
    const document = { ...(interrupted ? { interrupted: true } : {}), servers: reports, diagnostics: diagnostics.map(diagnosticReport) };
    output.out(terminalSafeJson(document, 2));
    return;
  }
  const style = styleFor(options);
  output.out(formatServerTable(reports, style, process.cwd(), withHealth));
  if (diagnostics.length) output.out('\n' + formatDiagnostics(diagnostics, style, process.cwd()));
  if (withHealth) output.out('\n' + summaryLine(reports, style, interrupted));
}

async function runList(options: CliOptions, output: Output): Promise<number> {
  const { servers, guarded, diagnostics } = await discoverSelection(options);
  const statuses = await guardReportsFor(guarded);
  const monitor = createMonitor(options, fixedGuardReports(statuses));
  try {
    monitor.setServers(servers, diagnostics);
    printServers(monitor.list().map(serverReport), diagnostics, options, output, false);
    if (!options.json) for (const line of await describeGuarded(guarded, async () => [...statuses])) output.out(line);
    return EXIT_OK;
  } finally {
    await monitor.dispose();
  }
}

async function runCheck(options: CliOptions, output: Output): Promise<number> {
  const { servers, guarded, diagnostics } = await discoverSelection(options);
  const cwd = process.cwd();
  const { ci } = options;
  const baselines = ci.baselineFile !== undefined ? await readBaselineFile(path.resolve(cwd, ci.baselineFile)) : null;
  const guardStatuses = await guardReportsFor(guarded);
  const monitor = createMonitor(options, fixedGuardReports(guardStatuses));
  const startedAt = new Date();
  const interrupt = interruption();
  let signal: NodeJS.Signals | undefined;
  try {
    monitor.setServers(servers, diagnostics);
    for (const server of baselines ? servers : []) monitor.setToolsBaseline(server.id, baselines?.get(server.name) ?? EMPTY_BASELINE);
    const checked = (async () => {
      await monitor.pingNow();
      // Tools, prompts and resources are listed once per connection, beside the probe: wait for them too.
      await monitor.settleInventory();
    })();
    signal = await Promise.race([checked.then(() => undefined), interrupt.signal]);
    // Read before dispose(), which forgets the servers: an interrupted check shows what it had, marked as such,
    // never an empty list that reads as "nothing configured".
    const statuses = monitor.list();
    // One probe per server here: with --slow-ms, an answer above it is slow, in the table, the summary line and --json.
    const reports = statuses.map(serverReport).map((report) => (isSlowAnswer(report, ci.slowMs) ? { ...report, slow: true } : report));
    if (signal !== undefined) {
      printServers(reports, diagnostics, options, output, true, true);
      return signal === 'SIGINT' ? EXIT_INTERRUPTED : EXIT_TERMINATED;
    }
    // A guarded entry whose client has not started its guard is listed, not judged.
    const results = verdicts(reports.filter(counted), ci);
    if (ci.format === 'github') for (const line of githubAnnotations(results, cwd)) output.out(line);
    printServers(reports, diagnostics, options, output, true);
    if (!options.json) for (const line of await describeGuarded(guarded, async () => [...guardStatuses])) output.out(line);
    if (ci.junitFile !== undefined) {
      const xml = junitXml({ results, startedAt, durationMs: Date.now() - startedAt.getTime(), hostname: os.hostname(), cwd });
      fs.writeFileSync(path.resolve(cwd, ci.junitFile), xml);
    }
    if (ci.saveBaselineFile !== undefined) {
      const skipped = writeBaselineFile(path.resolve(cwd, ci.saveBaselineFile), statuses, new Date());
      if (skipped.length)
        output.err(
          `mcp-health: left out of the baseline (tools not listed in full): ${skipped.map((name) => terminalSafe(name.replace(/\s+/g, ' '))).join(', ')}`,
        );
    }
    // Without --fail-on, healthy means what it means in every view: up and not flapping.
    // A slow answer fails a check only through --fail-on slow (ci.ts), as before slow was shown.
    const unhealthy = ci.failOn === undefined && !reports.filter(counted).every((report) => isHealthy({ ...report, slow: false }));
    return runFails(results) || unhealthy ? EXIT_UNHEALTHY : EXIT_OK;
  } finally {
    await monitor.dispose();
    // After a Ctrl-C the handlers stay: a child that ignores SIGTERM is still being killed (SIGKILL after a grace
    // period), and a second Ctrl-C must not end the CLI before that. The process exits once nothing is pending.
    if (signal === undefined) interrupt.dispose();
  }
}

function isSlowAnswer(report: ServerReport, slowMs: number | undefined): boolean {
  return slowMs !== undefined && report.state === 'up' && report.rttMs !== null && report.rttMs > slowMs;
}

function watchLine(event: MonitorEvent, options: CliOptions, style: Style): string | undefined {
  const ts = new Date().toISOString();
  if (event.type === 'probe') {
    const { result, status } = event;
    if (options.json) {
      return terminalSafeJson({
        ts,
        server: status.config.name,
        id: event.id,
        type: 'probe',
        ok: result.outcome === 'ok',
        outcome: result.outcome,
        rttMs: result.rttMs === undefined ? null : Math.round(result.rttMs * 100) / 100,
        method: result.method,
      });
    }
    const rtt = result.rttMs === undefined ? '' : ` ${result.rttMs.toFixed(1)} ms`;
    return `${ts.slice(11, 23)}  ${terminalSafe(status.config.name)}  ${result.method} ${result.outcome}${rtt}`;
  }
  if (event.type === 'state') {
    const { status } = event;
    if (options.json) {
      return terminalSafeJson({
        ts,
        server: status.config.name,
        id: event.id,
        type: 'state',
        from: event.from,
        to: event.to,
        reason: event.reason,
        ...(status.lastError && event.to !== 'up'
          ? { error: { kind: status.lastError.kind, message: status.lastError.message }, exitCode: status.lastError.exitCode ?? null }
          : {}),
        ...(status.cause ? { cause: { id: status.cause.id, summary: status.cause.summary }, nextStep: status.cause.nextStep } : {}),
      });
    }
    return `${ts.slice(11, 23)}  ${terminalSafe(status.config.name)}  ${event.from} -> ${stateLabel({ state: event.to, flapping: status.flapping }, style)}  ${terminalSafe(event.reason.replace(/\s+/g, ' '))}`;
  }
  if (event.type === 'wake') {
    // The machine slept (or the CLI was frozen): said once, then one probe round follows for every server.
    const { suspension } = event;
    if (options.json) {
      return cliJson({
        ts,
        type: 'wake',
        sleptMs: Math.round(suspension.sleptMs),
        detectedBy: suspension.detectedBy,
        message: wakeLine(suspension),
      });
    }
    return `${ts.slice(11, 23)}  ${wakeLine(suspension)}`;
  }
  if (event.type === 'tools-changed') {
    const { drift, status } = event;
    if (options.json) {
      return cliJson({
        ts,
        server: status.config.name,
        id: event.id,
        type: 'tools-changed',
        added: drift.added,
        removed: drift.removed,
        changed: drift.changed,
        baselineHash: drift.baselineHash,
        hash: drift.currentHash,
      });
    }
    return `${ts.slice(11, 23)}  ${terminalSafe(status.config.name)}  tools changed: ${terminalSafe(describeDrift(drift).replace(/\s+/g, ' '))}`;
  }
  return undefined;
}

function guardWatchLines(statuses: readonly ServerStatus[], last: Map<string, string>, options: CliOptions): string[] {
  const lines: string[] = [];
  for (const status of statuses) {
    const figures = status.guarded;
    if (!figures) continue;
    const text = figures.running
      ? `guarded ${status.state} (guard pid ${figures.guardPid ?? '-'}, upstream pid ${figures.upstreamPid ?? '-'}, restarts ${figures.restarts}, ${figures.requests} requests, ${figures.errors} errors)`
      : 'guarded, guard not running';
    if (last.get(status.config.id) === text) continue;
    last.set(status.config.id, text);
    const ts = new Date().toISOString();
    lines.push(
      options.json
        ? terminalSafeJson({ ts, server: status.config.name, id: status.config.id, type: 'guard', state: status.state, guarded: figures })
        : `${ts.slice(11, 23)}  ${terminalSafe(status.config.name)}  ${text}`,
    );
  }
  return lines;
}

/** Serves /metrics (--metrics) and exports OTLP (OTEL_EXPORTER_OTLP_*) when asked; a port that cannot be bound is a usage error. */
async function startWatchMetrics(monitor: MonitorRegistry, options: CliOptions, output: Output): Promise<MetricsExporter | undefined> {
  try {
    const metrics = await startMetrics({
      registry: monitor,
      ...(options.metrics ? { listen: options.metrics } : {}),
      build: { version: CLI_VERSION, frontEnd: 'cli' },
      timeoutMs: options.timeoutMs,
      env: process.env,
      warn: (message) => output.err(`mcp-health: ${message}`),
    });
    if (metrics.address) output.err(`mcp-health: metrics on http://${formatListenAddress(metrics.address)}/metrics`);
    if (!metrics.address && !metrics.otlp) {
      await metrics.close();
      return undefined;
    }
    return metrics;
  } catch (error) {
    await monitor.dispose();
    if (isMetricsListenError(error)) throw new UsageError(error.message);
    throw error;
  }
}

/** `--history FILE`: the same minute records the extension's export writes, appended while watching. */
async function startWatchHistory(
  monitor: MonitorRegistry,
  options: CliOptions,
  output: Output,
): Promise<{ stop(): Promise<void> } | undefined> {
  if (options.history === undefined) return undefined;
  const recorder = new HistoryRecorder(() => systemClock.wall());
  const appender = new HistoryAppender(options.history, recorder, systemClock, (message) => output.err(`mcp-health: history: ${message}`));
  try {
    await appender.start();
  } catch (error) {
    await monitor.dispose();
    throw new UsageError(`--history: cannot write ${options.history}: ${(error as Error).message}`);
  }
  const unsubscribe = recordHistory(monitor, recorder);
  return {
    stop: async () => {
      unsubscribe();
      await appender.stop();
    },
  };
}

async function runWatch(options: CliOptions, output: Output): Promise<number> {
  const { servers, diagnostics } = await discoverSelection(options);
  const style = styleFor(options);
  // Guarded entries are listed with their guard's figures, re-read while watching.
  const monitor = createMonitor(options, new GuardPoller(systemClock, readGuardStatuses));
  const startedAt = Date.now();
  const guardLines = new Map<string, string>();
  const unsubscribe = monitor.onEvent((event) => {
    const line = watchLine(event, options, style);
    if (line !== undefined) output.out(line);
    // Guarded entries change only through their guard's report: one line whenever it says something new.
    if (event.type === 'servers') for (const changed of guardWatchLines(monitor.list(), guardLines, options)) output.out(changed);
  });
  if (!options.json && diagnostics.length) output.err(formatDiagnostics(diagnostics, style, process.cwd()));
  const history = await startWatchHistory(monitor, options, output);
  monitor.setServers(servers, diagnostics);
  const metrics = await startWatchMetrics(monitor, options, output);
  monitor.start();

  await untilStopped(options.durationMs);

  const statuses = monitor.list();
  unsubscribe();
  await history?.stop();
  await metrics?.close();
  await monitor.dispose();
  const summary = watchSummary(statuses, startedAt, Date.now());
  if (options.json) {
    output.out(terminalSafeJson(summary));
  } else {
    output.out('\n' + formatServerTable(statuses.map(serverReport), style, process.cwd(), true));
  }
  const judged = statuses.map(serverReport).filter(counted);
  return judged.length > 0 && judged.every(isHealthy) ? EXIT_OK : EXIT_UNHEALTHY;
}

export async function main(argv: readonly string[], output: Output = processOutput): Promise<number> {
  // The guard owns stdout as a protocol stream, so it is dispatched before anything could print there.
  if (argv[0] === 'guard') return runGuard(argv.slice(1), output.err, output.out);
  if (argv[0] === 'serve') return runServe(argv.slice(1), CLI_VERSION, output.out, output.err);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    output.out(CLI_VERSION);
    return EXIT_OK;
  }
  let options: CliOptions | 'help';
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`mcp-health: ${terminalSafe(error.message)}\n\n${USAGE}`);
      return EXIT_USAGE;
    }
    throw error;
  }
  if (options === 'help') {
    output.out(USAGE);
    return EXIT_OK;
  }
  try {
    switch (options.command) {
      case 'list':
        return await runList(options, output);
      case 'check':
        return await runCheck(options, output);
      case 'watch':
        return await runWatch(options, output);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`mcp-health: ${terminalSafe(error.message)}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
