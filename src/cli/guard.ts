// `mcp-health guard` in the full CLI: every form of the subcommand (stdio, --url, --print-config, --help). A stdio
// guard is normally started through the lean dist/guard.js instead (src/guardCli.ts); both run src/cli/guardRun.ts.

import type { Logger } from '../core/logger';
import { HttpUpstream } from '../guard/httpUpstream';
import type { UpstreamFactory } from '../guard/upstream';
import { UsageError } from './args';
import { discoverConfigs } from './discovery';
import { GUARD_USAGE, parseGuardArgs, type GuardOptions, type PrintConfigOptions } from './guardArgs';
import { guardSnippets } from './guardConfig';
import { runSession, stderrLogger, stdioUpstreams } from './guardRun';

export async function runGuard(argv: readonly string[], err: (text: string) => void, out: (text: string) => void): Promise<number> {
  let options: GuardOptions | PrintConfigOptions | 'help';
  try {
    options = parseGuardArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`mcp-health: ${error.message}\n\n${GUARD_USAGE}`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    // stdout may be a client's protocol stream: the usage goes to stderr like every other guard message.
    err(GUARD_USAGE);
    return 0;
  }
  if ('printConfig' in options) return printConfig(options, out, err);
  return runSession(options, upstreamFactory(options, stderrLogger(options.name)));
}

async function printConfig(options: PrintConfigOptions, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const result = await discoverConfigs(options);
  const server = result.servers.find((candidate) => candidate.name === options.printConfig);
  if (!server) {
    err(`mcp-health: guard: no server named "${options.printConfig}" was found`);
    return 2;
  }
  out(guardSnippets(server));
  return 0;
}

function upstreamFactory(options: GuardOptions, logger: Logger): UpstreamFactory {
  const target = options.target;
  if (target.kind === 'stdio') return stdioUpstreams(target);
  const http = { url: target.url, headers: target.headers, flavour: target.kind === 'sse' ? 'sse' : 'streamable' } as const;
  return () => new HttpUpstream(http, logger);
}
