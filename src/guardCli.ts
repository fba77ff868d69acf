// `mcp-health guard` in front of a stdio server, as its own small bundle (dist/guard.js). A client runs one guard per
// guarded server for as long as its session lasts, so this loads only the guard: no SDK, zod, config parsers or
// prom-client. Everything else the subcommand does (--url, --print-config, --help, a usage error) is rare and goes to
// the full CLI, loaded only then.

import * as path from 'node:path';
import { UsageError } from './cli/args';
import { parseGuardArgs, type GuardOptions, type GuardStdioTarget } from './cli/guardArgs';
import { runSession, stdioUpstreams } from './cli/guardRun';

type CliMain = (argv: readonly string[]) => Promise<number>;

export function main(argv: readonly string[]): Promise<number> {
  const options = stdioGuard(argv);
  if (options) return runSession(options, stdioUpstreams(options.target));
  // A computed path, so that the bundler leaves the full CLI where it is instead of inlining it here.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const full = require(path.join(__dirname, 'main.js')) as { main: CliMain };
  return full.main(['guard', ...argv]);
}

function stdioGuard(argv: readonly string[]): (GuardOptions & { target: GuardStdioTarget }) | null {
  let options: ReturnType<typeof parseGuardArgs>;
  try {
    options = parseGuardArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) return null;
    throw error;
  }
  if (options === 'help' || 'printConfig' in options || options.target.kind !== 'stdio') return null;
  return options as GuardOptions & { target: GuardStdioTarget };
}
