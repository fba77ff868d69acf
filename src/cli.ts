// mcp-health: the terminal front end on the same core as the extension.

import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCliArgs, USAGE, UsageError, type CliOptions } from './cli/args';
import { EMPTY_BASELINE, readBaselineFile, runFails, verdicts, writeBaselineFile } from './cli/ci';
import { githubAnnotations } from './cli/githubAnnotations';
import { junitXml } from './cli/junit';
import { describeDrift } from './core/inventory/drift';
import { diagnosticReport, formatDiagnostics, formatServerTable, serverReport, stateLabel, summaryLine, type ServerReport, type Style } from './cli/format';
import { systemClock } from './core/clock';
import { discover, type DiscoveryResult } from './core/config/discover';
import { silentLogger } from './core/logger';
import type { ServerConfig, ServerStatus } from './core/model';
import { createRegistry } from './core/monitor';
import { defaultMonitorSettings, type MonitorEvent, type MonitorSettings } from './core/monitorTypes';
import { createNodeConnector } from './mcp';
import { nodeFileSystem } from './mcp/nodeFileSystem';

const EXIT_OK = 0;
const EXIT_UNHEALTHY = 1;
const EXIT_USAGE = 2;

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: Output = {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
};

async function discoverFor(options: CliOptions): Promise<DiscoveryResult> {
  const onlyConfigFiles = options.configFiles.length > 0 && options.workspaces.length === 0;
  const cwd = process.cwd();
  return discover(
    {
      workspaceFolders: onlyConfigFiles ? [] : (options.workspaces.length ? options.workspaces : [cwd]).map((dir) => path.resolve(cwd, dir)),
      userHome: os.homedir(),
      platform: process.platform,
      env: process.env,
      includeUser: options.includeUser && !onlyConfigFiles,
      configFiles: options.configFiles.map((file) => path.resolve(cwd, file)),
    },
    nodeFileSystem,
  );
}

function selectServers(result: DiscoveryResult, names: readonly string[]): ServerConfig[] {
  if (names.length === 0) return result.servers;
  const known = new Set([...result.servers.map((server) => server.name), ...result.diagnostics.flatMap((d) => (d.serverName ? [d.serverName] : []))]);
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
  return { servers: selectServers(result, options.serverNames), diagnostics: selectDiagnostics(result, options.serverNames) };
}

function monitorSettings(options: CliOptions): MonitorSettings {
  const interval = options.intervalMs;
  return {
    ...defaultMonitorSettings,
    intervalMs: interval === undefined ? defaultMonitorSettings.intervalMs : { stdio: interval, http: interval, sse: interval },
    timeoutMs: options.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs,
  };
}

function createMonitor(options: CliOptions) {
  return createRegistry({
    connector: createNodeConnector({ logger: silentLogger, clientInfo: { name: 'mcp-health', version: CLI_VERSION } }),
    clock: systemClock,
    logger: silentLogger,
    settings: monitorSettings(options),
  });
}

/**
 * stdio servers run in process groups of their own, so a Ctrl-C does not reach them: close them before leaving,
 * or they outlive the CLI.
 */
async function closingOnInterrupt<T>(monitor: { dispose(): Promise<void> }, work: () => Promise<T>): Promise<T> {
  const onSignal = (signal: NodeJS.Signals) => {
    void monitor.dispose().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await work();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
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
): void {
  if (options.json) {
    output.out(JSON.stringify({ servers: reports, diagnostics: diagnostics.map(diagnosticReport) }, null, 2));
    return;
  }
  const style = styleFor(options);
  output.out(formatServerTable(reports, style, process.cwd(), withHealth));
  if (diagnostics.length) output.out('\n' + formatDiagnostics(diagnostics, style, process.cwd()));
  if (withHealth) output.out('\n' + summaryLine(reports, style));
}

async function runList(options: CliOptions, output: Output): Promise<number> {
  const { servers, diagnostics } = await discoverSelection(options);
  const monitor = createMonitor(options);
  try {
    monitor.setServers(servers, diagnostics);
    printServers(monitor.list().map(serverReport), diagnostics, options, output, false);
    return EXIT_OK;
  } finally {
    await monitor.dispose();
  }
}

async function runCheck(options: CliOptions, output: Output): Promise<number> {
  const { servers, diagnostics } = await discoverSelection(options);
  const cwd = process.cwd();
  const { ci } = options;
  const baselines = ci.baselineFile !== undefined ? readBaselineFile(path.resolve(cwd, ci.baselineFile)) : null;
  const monitor = createMonitor(options);
  const startedAt = new Date();
  try {
    monitor.setServers(servers, diagnostics);
    for (const server of baselines ? servers : []) monitor.setToolsBaseline(server.id, baselines?.get(server.name) ?? EMPTY_BASELINE);
    await closingOnInterrupt(monitor, async () => {
      await monitor.pingNow();
      // Tools, prompts and resources are listed once per connection, beside the probe: wait for them too.
      await monitor.settleInventory();
    });
    const statuses = monitor.list();
    const reports = statuses.map(serverReport);
    const results = verdicts(reports, ci);
    if (ci.format === 'github') for (const line of githubAnnotations(results, cwd)) output.out(line);
    printServers(reports, diagnostics, options, output, true);
    if (ci.junitFile !== undefined) {
      const xml = junitXml({ results, startedAt, durationMs: Date.now() - startedAt.getTime(), hostname: os.hostname(), cwd });
      writeFileSync(path.resolve(cwd, ci.junitFile), xml);
    }
    if (ci.saveBaselineFile !== undefined) {
      const skipped = writeBaselineFile(path.resolve(cwd, ci.saveBaselineFile), statuses, new Date());
      if (skipped.length) output.err(`mcp-health: left out of the baseline (tools not listed in full): ${skipped.join(', ')}`);
    }
    return runFails(results) ? EXIT_UNHEALTHY : EXIT_OK;
  } finally {
    await monitor.dispose();
  }
}

function watchSummary(statuses: readonly ServerStatus[], startedAt: number, now: number) {
  return {
    ts: new Date(now).toISOString(),
    type: 'summary',
    durationMs: Math.round(now - startedAt),
    servers: statuses.map((status) => ({
      id: status.config.id,
      server: status.config.name,
      state: status.state,
      probes: status.stats.count,
      ok: status.stats.okCount,
      p50Ms: status.stats.p50Ms,
      p95Ms: status.stats.p95Ms,
      uptimePercent: status.stats.uptimePercent,
      restarts: status.restarts,
      flapping: status.flapping,
      lastError: status.lastError ? { kind: status.lastError.kind, message: status.lastError.message } : null,
      cause: status.cause ? { id: status.cause.id, summary: status.cause.summary } : null,
      nextStep: status.cause?.nextStep ?? null,
      tools: status.inventory?.tools ? { count: status.inventory.tools.count, hash: status.inventory.tools.hash } : null,
    })),
  };
}

function watchLine(event: MonitorEvent, options: CliOptions, style: Style): string | undefined {
  const ts = new Date().toISOString();
  if (event.type === 'probe') {
    const { result, status } = event;
    if (options.json) {
      return JSON.stringify({
        ts, server: status.config.name, id: event.id, type: 'probe', ok: result.outcome === 'ok', outcome: result.outcome,
        rttMs: result.rttMs === undefined ? null : Math.round(result.rttMs * 100) / 100, method: result.method,
      });
    }
    const rtt = result.rttMs === undefined ? '' : ` ${result.rttMs.toFixed(1)} ms`;
    return `${ts.slice(11, 23)}  ${status.config.name}  ${result.method} ${result.outcome}${rtt}`;
  }
  if (event.type === 'state') {
    const { status } = event;
    if (options.json) {
      return JSON.stringify({
        ts, server: status.config.name, id: event.id, type: 'state', from: event.from, to: event.to, reason: event.reason,
        ...(status.lastError && event.to !== 'up' ? { error: { kind: status.lastError.kind, message: status.lastError.message }, exitCode: status.lastError.exitCode ?? null } : {}),
        ...(status.cause ? { cause: { id: status.cause.id, summary: status.cause.summary }, nextStep: status.cause.nextStep } : {}),
      });
    }
    return `${ts.slice(11, 23)}  ${status.config.name}  ${event.from} -> ${stateLabel({ state: event.to, flapping: status.flapping }, style)}  ${event.reason}`;
  }
  if (event.type === 'tools-changed') {
    const { drift, status } = event;
    if (options.json) {
      return JSON.stringify({
        ts, server: status.config.name, id: event.id, type: 'tools-changed',
        added: drift.added, removed: drift.removed, changed: drift.changed, baselineHash: drift.baselineHash, hash: drift.currentHash,
      });
    }
    return `${ts.slice(11, 23)}  ${status.config.name}  tools changed: ${describeDrift(drift)}`;
  }
  return undefined;
}

async function runWatch(options: CliOptions, output: Output): Promise<number> {
  const { servers, diagnostics } = await discoverSelection(options);
  const style = styleFor(options);
  const monitor = createMonitor(options);
  const startedAt = Date.now();
  const unsubscribe = monitor.onEvent((event) => {
    const line = watchLine(event, options, style);
    if (line !== undefined) output.out(line);
  });
  if (!options.json && diagnostics.length) output.err(formatDiagnostics(diagnostics, style, process.cwd()));
  monitor.setServers(servers, diagnostics);
  monitor.start();

  await new Promise<void>((resolve) => {
    // The monitor's own timers are unref'd; this one keeps the process alive until the duration ends or Ctrl-C.
    const keepAlive = setTimeout(stop, options.durationMs ?? 2 ** 31 - 1);
    function stop() {
      clearTimeout(keepAlive);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    }
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

  const statuses = monitor.list();
  unsubscribe();
  await monitor.dispose();
  const summary = watchSummary(statuses, startedAt, Date.now());
  if (options.json) {
    output.out(JSON.stringify(summary));
  } else {
    output.out('\n' + formatServerTable(statuses.map(serverReport), style, process.cwd(), true));
  }
  return statuses.length > 0 && statuses.every((status) => status.state === 'up') ? EXIT_OK : EXIT_UNHEALTHY;
}

export async function main(argv: readonly string[], output: Output = processOutput): Promise<number> {
  let options: CliOptions | 'help';
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`mcp-health: ${error.message}\n\n${USAGE}`);
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
      output.err(`mcp-health: ${error.message}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`mcp-health: unexpected failure: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
      process.exitCode = EXIT_UNHEALTHY;
    },
  );
}
