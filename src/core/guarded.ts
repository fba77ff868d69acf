// Recognises a config entry that already runs its server through `mcp-health guard`: MCP Health must never start a
// second copy of such a server; the guard reports that server's health itself.

import { STABLE_GUARD_FILE } from './guardLauncher';
import type { ServerConfig } from './model';

/** The name the guard publishes its status under (its --name, else the entry's name), or null when not guarded. */
export function guardedName(server: Pick<ServerConfig, 'name' | 'transport' | 'command' | 'args'>): string | null {
  if (server.transport !== 'stdio' || !server.command) return null;
  const words = [server.command, ...(server.args ?? [])];
  const guardAt = guardWordAt(words);
  if (guardAt === -1) return null;
  const separator = words.indexOf('--', guardAt);
  const own = separator === -1 ? words.slice(guardAt + 1) : words.slice(guardAt + 1, separator);
  const nameAt = own.indexOf('--name');
  if (nameAt !== -1 && own[nameAt + 1]) return own[nameAt + 1]!;
  // `--name=-x`: how a name that starts with a dash is written.
  const joined = own.find((word) => word.startsWith('--name='));
  return joined !== undefined && joined.length > '--name='.length ? joined.slice('--name='.length) : server.name;
}

/**
 * Where the upstream's own command line starts in `[command, ...args]` of a guarded stdio entry (the word after the
 * guard's `--`), or null when the words do not run `mcp-health guard -- COMMAND`.
 */
export function guardedUpstreamAt(words: readonly string[]): number | null {
  const guardAt = guardWordAt(words);
  if (guardAt === -1) return null;
  const separator = words.indexOf('--', guardAt);
  return separator === -1 || separator + 1 >= words.length ? null : separator + 1;
}

function guardWordAt(words: readonly string[]): number {
  // Past a `--` the words belong to the server's own command line, whatever they say.
  const firstSeparator = words.indexOf('--');
  const head = firstSeparator === -1 ? words : words.slice(0, firstSeparator);
  return head.findIndex((word, index) => word === 'guard' && index > 0 && (isOurCli(head[index - 1]!) || isPrintedLauncher(head, index)));
}

/**
 * `node /any/path/cli.js guard --name NAME ...`: what `guard --print-config` prints, from wherever the CLI runs (a
 * checkout need not be in a directory called mcp-health), and `node <global storage>/bin/mcp-health-guard.js guard
 * --name NAME ...`: what "Guard This Server" writes. The `--name` the guard's own options always carry there keeps
 * another tool's `cli.js guard` from passing for ours.
 */
function isPrintedLauncher(head: readonly string[], guardAt: number): boolean {
  const cli = head[guardAt - 1]!;
  const base = cli.split(/[\\/]/).pop() ?? cli;
  return (
    (base === 'cli.js' || base === STABLE_GUARD_FILE) && head.slice(guardAt).some((word) => word === '--name' || word.startsWith('--name='))
  );
}

/** `mcp-health`, `mcp-health@1.2.3` (npx), or a path to its cli.js / bin. */
function isOurCli(word: string): boolean {
  const base = word.split(/[\\/]/).pop() ?? word;
  if (/^mcp-health(@[^\s]+)?(\.cmd|\.exe)?$/.test(base)) return true;
  return base === 'cli.js' && /mcp-health/.test(word);
}
