// Signals for a stdio server's whole process tree. On POSIX the child leads its own process group (spawned
// detached), so one signal to the group also reaches the helpers it started; Windows has no groups, so taskkill /T.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { settlesWithin } from './settlesWithin';

const isWindows = process.platform === 'win32';

/** Groups still alive, so an abrupt exit of this process (Ctrl-C in the CLI, an editor shutdown) reaps them too. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
}

export function untrackGroup(pid: number): void {
  liveGroups.delete(pid);
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (isWindows) {
    if (signal === 'SIGKILL' || signal === 'SIGTERM') {
      const killer = spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
      killer.on('error', () => undefined);
    }
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the whole group is already gone, which is what we wanted.
  }
}

export function groupAlive(pid: number): boolean {
  if (isWindows) return false;
  try {
    process.kill(-pid, 0);
  } catch {
    // ESRCH: gone. EPERM: someone else's process now holds that group id, so it is not ours any more.
    return false;
  }
  return process.platform !== 'linux' || hasLiveMember(pid);
}

/**
 * A helper that died after its leader is re-parented and stays a zombie until something reaps it, which can take long
 * where PID 1 is not an init (containers); the kernel still counts it in the group. Only running members matter.
 */
function hasLiveMember(group: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === group && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

/**
 * SIGTERM to the group, SIGKILL after the grace period to whatever is left (leader or helpers that ignore SIGTERM).
 * Resolves once the leader has exited and no member of the group remains, or the bounded wait ran out.
 */
export async function terminateGroup(child: ChildProcess, leaderExited: Promise<void>, graceMs: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  signalGroup(pid, 'SIGTERM');
  // A stopped process (SIGSTOP, Ctrl-Z: a common way a server "hangs") keeps SIGTERM pending until it runs again, so
  // without this every reconnect after such a hang would wait out the whole grace period.
  signalGroup(pid, 'SIGCONT');
  const deadline = Date.now() + graceMs;
  if (!(await settlesWithin(leaderExited, graceMs))) {
    signalGroup(pid, 'SIGKILL');
    await settlesWithin(leaderExited, graceMs);
  }
  // Helpers that outlive their leader keep the group alive: poll it for the rest of the grace period, then kill.
  while (groupAlive(pid) && Date.now() < deadline) await delay(25);
  if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
  untrackGroup(pid);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
