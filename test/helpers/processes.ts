// Whether a process a test started is still running: the one answer every tier uses.
import { existsSync, readFileSync } from 'node:fs';
import { waitFor } from './wait';

const HAS_PROC = existsSync('/proc/self/stat');

/**
 * Running, not merely unreaped: a zombie (or a dead task, X) is gone for every purpose but the process table, and an
 * orphaned one waits for PID 1, which in a container may take its time. Where there is no /proc, signal 0 is all we have.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!HAS_PROC) return true;
  try {
    // The state follows the command name, which is in parentheses and may itself hold ") ".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    // It went between the signal and the read.
    return false;
  }
}

/** Resolves once `pid` is gone (see isAlive); throws when it outlives `timeoutMs`. */
export async function waitUntilDead(pid: number, timeoutMs = 10_000): Promise<void> {
  await waitFor(`process ${pid} to end`, () => !isAlive(pid), timeoutMs, 20);
}
