// How a bundle run as a command ends: its exit code, or an unexpected failure on stderr and exit code 1. Shared by the
// `mcp-health` launcher (dist/cli.js) and the guard's bundle run directly (the stable copy Guard This Server writes).

import { createCliOutput } from './output';

export function runEntry(main: (argv: readonly string[]) => Promise<number>, argv: readonly string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      createCliOutput().err(`mcp-health: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exitCode = 1;
    },
  );
}
