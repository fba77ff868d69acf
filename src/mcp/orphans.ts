// Server processes left behind by a window that crashed while it led the user-level servers. Our stdio children run
// in their own process group (spawned detached, so a signal reaches their helpers), which also means they do not die
// with a SIGKILLed parent; many servers exit on stdin EOF, but not all. The window that takes over kills those the old
// leader recorded starting (childLedger.ts) and reported, still with the same start time and command line, so neither
// a reused pid nor a pid a peer merely names is ever hit.

import { stillRunning, type SpawnRecord } from './childLedger';
import { signalGroup } from './processGroup';

export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: string;
}

/**
 * Kills (SIGTERM, then SIGKILL after graceMs) the process groups of those still running as recorded: same pid, same
 * start time and the same command line (src/mcp/childLedger.ts), checked again before each signal.
 */
export async function reapOrphans(records: readonly SpawnRecord[], graceMs: number): Promise<number[]> {
  const alive = records.filter(stillRunning);
  for (const { pid } of alive) signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive.some(stillRunning) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  for (const record of alive) {
    if (stillRunning(record)) signalGroup(record.pid, 'SIGKILL');
  }
  return alive.map(({ pid }) => pid);
}
