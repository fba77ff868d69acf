// `mcp-health guard` in front of a stdio server, as its own small bundle (dist/guard.js). A client runs one guard per
// guarded server for as long as its session lasts, so this loads only the guard: no SDK, zod, config parsers or
// prom-client. Everything else the subcommand does (--url, --print-config, --help, a usage error) is rare and goes to
// the full CLI, loaded only then.

import * as path from 'node:path';
import { UsageError } from './cli/args';
import { parseGuardArgs, type GuardOptions, type GuardStdioTarget } from './cli/guardArgs';
import { runSession, stdioUpstreams } from './cli/guardRun';
import { createCliOutput } from './cli/output';
import { runEntry } from './cli/runEntry';

type CliMain = (argv: readonly string[]) => Promise<number>;

export function main(argv: readonly string[]): Promise<number> {
  const options = stdioGuard(argv);
  if (options) return runSession(options, stdioUpstreams(options.target));
  // A computed path, so that the bundler leaves the full CLI where it is instead of inlining it here.
  const fullCli = path.join(__dirname, 'main.js');
  let full: { main: CliMain };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    full = require(fullCli) as { main: CliMain };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    // The stable copy "Guard This Server" keeps outside the editor's extension folder is this file alone.
    createCliOutput().err(
      `mcp-health guard: this copy of the guard (${__filename}) runs stdio servers only ("guard --name NAME -- COMMAND ..."); ` +
        'for --url, --print-config or --help use the mcp-health command itself',
    );
    return Promise.resolve(2);
  }
  return full.main(['guard', ...argv]);
}

// Run directly (the stable copy that "Guard This Server" writes into a config entry: `node <copy> guard --name N -- CMD`).
// Loaded by dist/cli.js instead, require.main is the launcher and this stays quiet.
if (require.main === module && process.argv[2] === 'guard') {
  runEntry(main, process.argv.slice(3));
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
