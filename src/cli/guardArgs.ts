// Parses `mcp-health guard ...`. Pure: returns a description of the run or throws a UsageError.

import { parseArgs } from 'node:util';
import type { SandboxPolicy } from '../core/model';
import { MIN_INTERVAL_MS, MIN_TIMEOUT_MS } from '../core/monitor/intervals';
import { defaultMonitorSettings } from '../core/monitorTypes';
import { policyFromJson } from '../core/sandbox';
import { UsageError } from './args';

export interface GuardStdioTarget {
  readonly kind: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** `--sandbox JSON`: the server is started only inside VS Code's sandbox with this policy (src/mcp/sandboxLaunch.ts). */
  readonly sandbox?: SandboxPolicy;
}

export interface GuardHttpTarget {
  readonly kind: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface GuardOptions {
  readonly name: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly target: GuardStdioTarget | GuardHttpTarget;
}

export interface PrintConfigOptions {
  readonly printConfig: string;
  readonly workspaces: readonly string[];
  readonly configFiles: readonly string[];
  readonly includeUser: boolean;
}

// A guard is a stdio server seen from its client: the monitor's stdio timing and floors.
const DEFAULT_INTERVAL_MS = defaultMonitorSettings.intervalMs.stdio;
const DEFAULT_TIMEOUT_MS = defaultMonitorSettings.timeoutMs;

export const GUARD_USAGE = `Usage:
  mcp-health guard [--name NAME] [--interval-ms N] [--timeout-ms N] [--sandbox JSON] -- <command> [args...]
  mcp-health guard [--name NAME] [--interval-ms N] [--timeout-ms N] --url URL [--header 'K: V']... [--sse]
  mcp-health guard --print-config NAME [--workspace DIR]... [--config FILE]... [--no-user]

  Runs in place of an MCP server: a transparent stdio proxy that keeps the real connection alive with keepalive
  probes and restarts the server (replaying the client's handshake) when it dies or stops answering.
  --name NAME       the name used in diagnostics (default: the command's or the URL's base name)
  --interval-ms N   idle time before a keepalive probe (default ${DEFAULT_INTERVAL_MS}, minimum ${MIN_INTERVAL_MS})
  --timeout-ms N    time a probe may take; no answer means the upstream is dead (default ${DEFAULT_TIMEOUT_MS}, minimum ${MIN_TIMEOUT_MS})
  --sandbox JSON    start the command only inside VS Code's MCP sandbox with this policy (the "sandbox" block of
                    a VS Code entry with "sandboxEnabled"); never without it
  --url URL         a Streamable HTTP upstream (legacy HTTP+SSE with --sse)
  --header 'K: V'   a request header for the HTTP upstream (repeatable); its value is never printed
  --print-config NAME
                    print the config entry that runs the discovered server NAME through the guard`;

function wholeNumber(flag: string, value: string | undefined, minimum: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} expects a whole number of milliseconds, got "${value}"`);
  const parsed = Number(value);
  if (parsed < minimum) throw new UsageError(`--${flag} must be at least ${minimum} (got ${parsed})`);
  return parsed;
}

export function parseGuardArgs(argv: readonly string[]): GuardOptions | PrintConfigOptions | 'help' {
  const separator = argv.indexOf('--');
  const own = separator === -1 ? [...argv] : argv.slice(0, separator);
  const command = separator === -1 ? [] : argv.slice(separator + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      allowPositionals: false,
      strict: true,
      options: {
        name: { type: 'string' },
        'interval-ms': { type: 'string' },
        'timeout-ms': { type: 'string' },
        url: { type: 'string' },
        header: { type: 'string', multiple: true },
        sse: { type: 'boolean' },
        sandbox: { type: 'string' },
        'print-config': { type: 'string' },
        workspace: { type: 'string', multiple: true },
        config: { type: 'string', multiple: true },
        'no-user': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(`guard: ${(error as Error).message}`);
  }
  if (values.help) return 'help';
  if (values['print-config'] !== undefined) {
    if (command.length || values.url !== undefined)
      throw new UsageError('guard: --print-config takes a server name, not a command or --url');
    return {
      printConfig: values['print-config'],
      workspaces: values.workspace ?? [],
      configFiles: values.config ?? [],
      includeUser: !values['no-user'],
    };
  }
  if (values.workspace || values.config || values['no-user'])
    throw new UsageError('guard: --workspace, --config and --no-user apply to --print-config only');
  const intervalMs = wholeNumber('interval-ms', values['interval-ms'], MIN_INTERVAL_MS, DEFAULT_INTERVAL_MS);
  const timeoutMs = wholeNumber('timeout-ms', values['timeout-ms'], MIN_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  if (values.url !== undefined) {
    if (command.length) throw new UsageError('guard: give either --url or a command after --, not both');
    let url: URL;
    try {
      url = new URL(values.url);
    } catch {
      throw new UsageError(`guard: --url is not a URL: "${values.url}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('guard: --url must be http: or https:');
    return {
      name: values.name ?? url.hostname,
      intervalMs,
      timeoutMs,
      target: { kind: values.sse ? 'sse' : 'http', url: url.href, headers: parseHeaders(values.header ?? []) },
    };
  }
  if (values.header !== undefined || values.sse) throw new UsageError('guard: --header and --sse apply to --url only');
  const sandbox = values.sandbox === undefined ? undefined : policyFromJson(values.sandbox);
  if (typeof sandbox === 'string') throw new UsageError(`guard: --sandbox ${sandbox}`);
  if (command.length === 0 || command[0] === '') throw new UsageError('guard: missing the server command after --');
  return {
    name: values.name ?? baseName(command[0]!),
    intervalMs,
    timeoutMs,
    target: { kind: 'stdio', command: command[0]!, args: command.slice(1), ...(sandbox ? { sandbox } : {}) },
  };
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of lines) {
    const colon = header.indexOf(':');
    const key = colon > 0 ? header.slice(0, colon).trim() : '';
    // The value may be a secret: the message names the header, never its content.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
      throw new UsageError(`guard: --header expects 'Name: value' (got a header without a valid name)`);
    headers[key] = header.slice(colon + 1).trim();
  }
  return headers;
}

function baseName(command: string): string {
  const parts = command.split(/[\\/]/);
  return parts[parts.length - 1] || command;
}
