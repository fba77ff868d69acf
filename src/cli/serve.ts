// `mcp-health serve --listen HOST:PORT [--modules FILE]`: the multi-target /probe exporter (src/metrics/probe).

import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { formatListenAddress, parseListenAddress, type ListenAddress } from '../metrics/listenAddress';
import { DEFAULT_SERVE_CONFIG, ModulesError, parseServeConfig, startServe, type ServeConfig } from '../metrics/probe';
import { MetricsListenError } from '../metrics/httpServer';
import { terminalSafe } from './terminalText';
import { untilStopped } from './untilStopped';

export const SERVE_USAGE = `Usage: mcp-health serve [--listen HOST:PORT] [--modules FILE]

  --listen HOST:PORT  where to serve /probe, /metrics and /healthz (default 127.0.0.1:9465; HOST defaults to 127.0.0.1)
  --modules FILE      YAML: modules (timeout, headers from env or files, proxy, list_tools, expected_tools_hash),
                      allow (host names, addresses, CIDR ranges a target may have), max_concurrent (default 16)

GET /probe?target=https://host/mcp[&module=NAME] probes that MCP server once, as check does, and answers with its
mcp_health_probe_* series. Only http(s) targets; stdio servers cannot be probed this way.`;

const DEFAULT_LISTEN: ListenAddress = { host: '127.0.0.1', port: 9465 };
const EXIT_OK = 0;
const EXIT_USAGE = 2;

interface ServeArgs {
  readonly listen: ListenAddress;
  readonly modules: string | undefined;
}

export function parseServeArgs(argv: readonly string[]): ServeArgs | 'help' | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: { listen: { type: 'string' }, modules: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    return (error as Error).message;
  }
  if (values.help) return 'help';
  const listen = values.listen === undefined ? DEFAULT_LISTEN : parseListenAddress(values.listen);
  if (typeof listen === 'string') return `--listen: ${listen}`;
  if (values.modules === '') return '--modules needs a file name';
  return { listen, modules: values.modules };
}

function loadConfig(file: string | undefined): ServeConfig {
  if (file === undefined) return DEFAULT_SERVE_CONFIG;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ModulesError(`--modules: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseServeConfig(text, file, { env: process.env, readFile: (secret) => fs.readFileSync(secret, 'utf8') });
}

/** Serves until SIGINT or SIGTERM; 2 on a usage error, a bad modules file or a port that cannot be bound. */
export async function runServe(
  argv: readonly string[],
  version: string,
  out: (text: string) => void,
  err: (text: string) => void,
): Promise<number> {
  const args = parseServeArgs(argv);
  if (args === 'help') {
    out(SERVE_USAGE);
    return EXIT_OK;
  }
  if (typeof args === 'string') {
    err(`mcp-health: ${terminalSafe(args)}\n\n${SERVE_USAGE}`);
    return EXIT_USAGE;
  }
  let server;
  try {
    server = await startServe({ listen: args.listen, config: loadConfig(args.modules), env: process.env, version });
  } catch (error) {
    if (error instanceof ModulesError || error instanceof MetricsListenError) {
      err(`mcp-health: ${terminalSafe(error.message)}`);
      return EXIT_USAGE;
    }
    throw error;
  }
  err(`mcp-health: serving probes on http://${formatListenAddress(server.address)}/probe?target=URL (and /metrics, /healthz)`);
  await untilStopped();
  await server.close();
  return EXIT_OK;
}
