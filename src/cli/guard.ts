// `mcp-health guard` in the full CLI: every form of the subcommand (stdio, --url, --print-config, --help). A stdio
// guard is normally started through the lean dist/guard.js instead (src/guardCli.ts); both run src/cli/guardRun.ts.

import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { localLauncher } from '../core/guardLauncher';
import type { Logger } from '../core/logger';
import { HttpUpstream } from '../guard/httpUpstream';
import type { HttpFetch } from '../mcp/connectorSettings';
import { printableProxy, proxiedFetch, proxyEnvironment } from '../mcp/httpProxy';
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
  const logger = stderrLogger(options.name);
  // The same proxy rules as `mcp-health check`: an upstream behind a corporate proxy is reached the same way.
  const target = options.target;
  const proxy = target.kind === 'stdio' ? null : proxyEnvironment(process.env);
  const http = proxy ? proxiedFetch(proxy) : undefined;
  if (proxy && target.kind !== 'stdio') {
    const via = target.url.startsWith('https:') ? proxy.httpsProxy : proxy.httpProxy;
    logger.debug(
      `HTTP upstream through the proxy ${via ? printableProxy(via) : '(none set for this scheme)'}, unless NO_PROXY or loopback`,
    );
  }
  try {
    return await runSession(options, upstreamFactory(options, logger, http?.fetch));
  } finally {
    http?.dispose();
  }
}

async function printConfig(options: PrintConfigOptions, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const result = await discoverConfigs(options);
  const server = result.servers.find((candidate) => candidate.name === options.printConfig);
  if (!server) {
    err(`mcp-health: guard: no server named "${options.printConfig}" was found`);
    return 2;
  }
  out(guardSnippets(server, localLauncher(thisCli())));
  return 0;
}

/**
 * The absolute path of the `mcp-health` command (dist/cli.js, the launcher beside this bundle), through any symlink a
 * global install put on PATH. This code runs in dist/main.js, which does nothing when started directly.
 */
function thisCli(): string {
  let here = __filename;
  try {
    here = realpathSync(__filename);
  } catch {
    // keep the path as loaded
  }
  return path.join(path.dirname(here), 'cli.js');
}

function upstreamFactory(options: GuardOptions, logger: Logger, fetch?: HttpFetch['fetch']): UpstreamFactory {
  const target = options.target;
  if (target.kind === 'stdio') return stdioUpstreams(target);
  const http = { url: target.url, headers: target.headers, flavour: target.kind === 'sse' ? 'sse' : 'streamable', fetch } as const;
  return () => new HttpUpstream(http, logger);
}
