// Parses the mcp-health command line. Pure: returns a description of the run or a usage error.

import { parseArgs } from 'node:util';
import { MIN_INTERVAL_MS as MONITOR_MIN_INTERVAL_MS, MIN_TIMEOUT_MS as MONITOR_MIN_TIMEOUT_MS } from '../core/monitor/intervals';
import { defaultMonitorSettings } from '../core/monitorTypes';
import { parseListenAddress, type ListenAddress } from '../metrics/listenAddress';
import { parseCiFlags, type CiOptions } from './ciArgs';
import { UsageError } from './usageError';

export type CommandName = 'list' | 'check' | 'watch';

export interface CliOptions {
  readonly command: CommandName;
  readonly workspaces: readonly string[];
  readonly configFiles: readonly string[];
  readonly includeUser: boolean;
  readonly serverNames: readonly string[];
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
  /** Bound on a stdio server's first start (never below connectTimeoutMs). */
  readonly startupTimeoutMs: number;
  readonly intervalMs: number | undefined;
  readonly durationMs: number | undefined;
  readonly json: boolean;
  readonly color: boolean | undefined;
  /** watch: serve Prometheus /metrics here. */
  readonly metrics: ListenAddress | undefined;
  /** watch: append each server's minute history records (JSON lines) to this file. */
  readonly history: string | undefined;
  /** check: baselines, JUnit, annotations and exit conditions for CI (see ciArgs.ts). */
  readonly ci: CiOptions;
}

export { UsageError };

/**
 * The CLI's floors are the monitor's own, below the editor settings' 5 s: tests and benchmarks watch failures and
 * recoveries happen within seconds, and a user of the CLI chose the number on the command line.
 */
export const MIN_INTERVAL_MS = MONITOR_MIN_INTERVAL_MS;
export const MIN_TIMEOUT_MS = MONITOR_MIN_TIMEOUT_MS;
/** A probe or connect that takes longer than ten minutes is a dead server, not a slow one. */
export const MAX_TIMEOUT_MS = 600_000;
/** A keepalive less often than daily would miss every failure a monitor is for. */
export const MAX_INTERVAL_MS = 86_400_000;
/** Node's timers hold 32-bit signed milliseconds; anything larger silently fires after 1 ms (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const DEFAULT_TIMEOUT_MS = defaultMonitorSettings.timeoutMs;
/** A cold stdio server (npx, a Python venv) can take seconds to start; the probe timeout stays short regardless. */
export const DEFAULT_CONNECT_TIMEOUT_MS = defaultMonitorSettings.connectTimeoutMs;
export const DEFAULT_STARTUP_TIMEOUT_MS = defaultMonitorSettings.startupTimeoutMs ?? 120_000;
const DEFAULT_INTERVALS = defaultMonitorSettings.intervalMs;

export const USAGE = `Usage:
  mcp-health --version | --help
  mcp-health list  [--workspace DIR]... [--config FILE]... [--no-user] [--json]
  mcp-health check [--workspace DIR]... [--config FILE]... [--no-user] [--server NAME]... [--timeout-ms N] [--connect-timeout-ms N] [--startup-timeout-ms N] [--json]
                   [--baseline FILE] [--save-baseline FILE] [--junit FILE] [--format table|json|github]
                   [--fail-on down,suspect,slow,drift] [--slow-ms N]
  mcp-health watch [--workspace DIR]... [--config FILE]... [--no-user] [--server NAME]...
                   [--interval-ms N] [--timeout-ms N] [--connect-timeout-ms N] [--startup-timeout-ms N] [--duration-ms N] [--json]
                   [--metrics HOST:PORT] [--history FILE]
  mcp-health serve [--listen HOST:PORT] [--modules FILE]   (the multi-target /probe exporter; serve --help)

  --workspace DIR   a workspace folder to discover servers in (repeatable; default: the current directory)
  --config FILE     read this one config file (repeatable); given alone, nothing else is discovered
  --no-user         skip user-level configs (~/.cursor, Claude Desktop, VS Code user mcp.json, ...)
  --server NAME     only this server (repeatable)
  --timeout-ms N    probe timeout (default ${DEFAULT_TIMEOUT_MS}, ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}); a probe is never retried
  --connect-timeout-ms N
                    bound on connecting to a server again (default ${DEFAULT_CONNECT_TIMEOUT_MS}, ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS})
  --startup-timeout-ms N
                    bound on a stdio server's first start, e.g. an npx download (default ${DEFAULT_STARTUP_TIMEOUT_MS},
                    ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}; never below --connect-timeout-ms); meanwhile it is starting
  --interval-ms N   watch: idle interval before a keepalive probe (default ${DEFAULT_INTERVALS.stdio} stdio, ${DEFAULT_INTERVALS.http} HTTP/SSE; ${MIN_INTERVAL_MS} to ${MAX_INTERVAL_MS})
  --duration-ms N   watch: stop after this long (default: until Ctrl-C; 1 to ${MAX_TIMER_MS})
  --history FILE    watch: append one JSON line per server and minute to FILE (probes ok/failed, RTT avg/min/max,
                    verified up ms, down ms, state changes; the records "MCP Health: Export History…" writes), each
                    about a minute after that minute ends, the minute under way when the watch stops
  --metrics HOST:PORT
                    watch: serve Prometheus /metrics and /healthz there (HOST defaults to 127.0.0.1); OTLP export
                    is configured by the OTEL_EXPORTER_OTLP_* environment variables
  --json            machine-readable output (check: one document; watch: JSON lines)
  --no-color        plain output even on a terminal
  --baseline FILE   check: compare each server's tools with this saved baseline; a difference is drift
  --save-baseline FILE
                    check: write the tools each server lists now as a baseline document
  --junit FILE      check: also write a JUnit XML report, one test case per server
  --format F        check: table (default), json (as --json) or github (workflow annotations at the config line)
  --fail-on LIST    check: what makes the exit code 1, a comma list of down, suspect, slow, drift
                    (default: any server not up, and drift when --baseline is given)
  --slow-ms N       check: a server answering slower than N ms is slow (for --fail-on slow)

Exit codes: 0 every selected server is healthy (up and not flapping; for watch: when it ends, after --duration-ms or
Ctrl-C; for check with --fail-on: nothing it names happened), 1 otherwise, 2 usage error (also a --config file that
does not exist), 130 interrupted by Ctrl-C (check prints what it had, marked interrupted).`;

function parseNumber(name: string, value: string | undefined, minimum: number, maximum: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} expects a whole number of milliseconds, got "${value}"`);
  const parsed = Number(value);
  if (parsed < minimum) throw new UsageError(`--${name} must be at least ${minimum} (got ${parsed})`);
  // Compared as a number, so 40 digits are refused here rather than rounded into something that looks valid.
  if (parsed > maximum) throw new UsageError(`--${name} must be at most ${maximum} (got ${value})`);
  return parsed;
}

export function parseCliArgs(argv: readonly string[]): CliOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: 'string', multiple: true },
        config: { type: 'string', multiple: true },
        'no-user': { type: 'boolean' },
        server: { type: 'string', multiple: true },
        'timeout-ms': { type: 'string' },
        'connect-timeout-ms': { type: 'string' },
        'startup-timeout-ms': { type: 'string' },
        'interval-ms': { type: 'string' },
        'duration-ms': { type: 'string' },
        json: { type: 'boolean' },
        metrics: { type: 'string' },
        history: { type: 'string' },
        baseline: { type: 'string' },
        'save-baseline': { type: 'string' },
        junit: { type: 'string' },
        format: { type: 'string' },
        'fail-on': { type: 'string' },
        'slow-ms': { type: 'string' },
        'no-color': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === 'help') return 'help';
  if (positionals.length === 0) throw new UsageError('missing command: list, check or watch');
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  const command = positionals[0];
  if (command !== 'list' && command !== 'check' && command !== 'watch') {
    throw new UsageError(`unknown command "${command}": expected list, check or watch`);
  }
  const intervalMs = parseNumber('interval-ms', values['interval-ms'], MIN_INTERVAL_MS, MAX_INTERVAL_MS);
  const durationMs = parseNumber('duration-ms', values['duration-ms'], 1, MAX_TIMER_MS);
  if (command !== 'watch' && (intervalMs !== undefined || durationMs !== undefined)) {
    throw new UsageError('--interval-ms and --duration-ms apply to watch only');
  }
  if (
    command === 'list' &&
    (values['timeout-ms'] !== undefined || values['connect-timeout-ms'] !== undefined || values['startup-timeout-ms'] !== undefined)
  ) {
    throw new UsageError('--timeout-ms, --connect-timeout-ms and --startup-timeout-ms do not apply to list');
  }
  const metrics = values.metrics === undefined ? undefined : parseListenAddress(values.metrics);
  if (typeof metrics === 'string') throw new UsageError(`--metrics: ${metrics}`);
  if (command !== 'watch' && metrics !== undefined) throw new UsageError('--metrics applies to watch only');
  if (command !== 'watch' && values.history !== undefined) throw new UsageError('--history applies to watch only');
  if (values.history === '') throw new UsageError('--history needs a file name');
  const ci = parseCiFlags(command, values, (name, value) => parseNumber(name, value, 1, MAX_TIMEOUT_MS));
  if (values.json && values.format !== undefined && ci.format !== 'json')
    throw new UsageError(`--json and --format ${ci.format} exclude each other`);
  return {
    command,
    workspaces: values.workspace ?? [],
    configFiles: values.config ?? [],
    includeUser: !values['no-user'],
    serverNames: values.server ?? [],
    timeoutMs: parseNumber('timeout-ms', values['timeout-ms'], MIN_TIMEOUT_MS, MAX_TIMEOUT_MS) ?? DEFAULT_TIMEOUT_MS,
    connectTimeoutMs:
      parseNumber('connect-timeout-ms', values['connect-timeout-ms'], MIN_TIMEOUT_MS, MAX_TIMEOUT_MS) ?? DEFAULT_CONNECT_TIMEOUT_MS,
    startupTimeoutMs:
      parseNumber('startup-timeout-ms', values['startup-timeout-ms'], MIN_TIMEOUT_MS, MAX_TIMEOUT_MS) ?? DEFAULT_STARTUP_TIMEOUT_MS,
    intervalMs,
    durationMs,
    json: (values.json ?? false) || ci.format === 'json',
    color: values['no-color'] ? false : undefined,
    metrics,
    history: values.history,
    ci,
  };
}
