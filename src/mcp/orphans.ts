// Server processes left behind by a window that crashed while it led the user-level servers. Our stdio children run
// in their own process group (spawned detached, so a signal reaches their helpers), which also means they do not die
// with a SIGKILLed parent; many servers exit on stdin EOF, but not all. The window that takes over kills them, having
// recorded each one's identity (pid + start time) while the old leader was alive, so a reused pid is never hit.

import { readFileSync } from 'node:fs';
import { signalGroup } from './processGroup';

/** Start time of a process in clock ticks since boot (Linux /proc), or undefined where it cannot be read. */
export function processStartTime(pid: number): string | undefined {
  if (process.platform !== 'linux' || !Number.isInteger(pid) || pid <= 1) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime
    //  priority nice threads itrealvalue starttime ...": comm may hold spaces, so count after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    if (state === 'Z' || state === 'X') return undefined;
    return fields[19];
  } catch {
    return undefined;
  }
}

export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: string;
}

/** Kills (SIGTERM, then SIGKILL after graceMs) the process groups of those still alive with the same identity. */
export async function reapOrphans(identities: readonly ProcessIdentity[], graceMs: number): Promise<number[]> {
  const alive = identities.filter((identity) => processStartTime(identity.pid) === identity.startTime);
  for (const { pid } of alive) signalGroup(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive.some(({ pid, startTime }) => processStartTime(pid) === startTime) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  for (const { pid, startTime } of alive) {
    if (processStartTime(pid) === startTime) signalGroup(pid, 'SIGKILL');
  }
  return alive.map(({ pid }) => pid);
}
