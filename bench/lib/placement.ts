// One CPU placement for both sides of a stdio round-trip comparison. On a machine with two or more cores, the scheduler
// wakes a server either on the caller's core (a hand-over) or on another (a cross-core wake-up, about twice as slow
// here) and tends to keep its choice per pair of processes. Ours and the raw pipe each talk to a server process of
// their own, so without a placement the two could be compared across that coin flip: the same exchange read 0.07 ms in
// one run and 0.14 in another. With one, the servers run on the last CPU and this process on the others, so every
// exchange of every variant crosses cores, as on a real machine where an idle server wakes on an idle core.
import { execFileSync } from 'node:child_process';

export interface CrossCorePlacement {
  /** The servers' CPU, e.g. "1". */
  readonly serverCpu: string;
  /** The command line that starts `command` pinned to the servers' CPU. */
  pinned(command: string, args: readonly string[]): { command: string; args: string[] };
  /** Gives this process its CPUs back. */
  restore(): void;
}

/** The CPUs of `taskset -cp`'s answer ("pid 123's current affinity list: 0,2-3"); empty when it says none. */
export function parseAffinityList(answer: string): number[] {
  const list = answer.slice(answer.lastIndexOf(':') + 1).trim();
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(list)) return [];
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number);
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
  });
}

/** Null where it cannot be had (one CPU, no `taskset`): the comparison then runs as the scheduler places it. */
export function crossCorePlacement(): CrossCorePlacement | null {
  const setOwn = (list: string): void => void execFileSync('taskset', ['-a', '-cp', list, String(process.pid)], { stdio: 'ignore' });
  let cpus: number[];
  try {
    cpus = parseAffinityList(execFileSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' }));
    if (cpus.length < 2) return null;
    setOwn(cpus.slice(0, -1).join(','));
  } catch {
    return null;
  }
  const serverCpu = String(cpus[cpus.length - 1]);
  return {
    serverCpu,
    pinned: (command, args) => ({ command: 'taskset', args: ['-c', serverCpu, command, ...args] }),
    restore: () => setOwn(cpus.join(',')),
  };
}
