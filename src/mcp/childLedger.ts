// The user-level server processes a leading window started itself, recorded by that window (never by a peer) in a
// file beside the channel socket: pid, start time and the exact command line (Linux /proc), written as each child
// appears. A window taking over from a crashed leader ends only processes found there that still have the same start
// time and command line: a pid a peer merely reported (a fake or confused leader) is never signalled.

import { lstatSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { array, integer, object, parseWith, string } from '../core/channelSchema';

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

export interface SpawnRecord {
  readonly pid: number;
  readonly startTime: string;
  /** argv as the kernel holds it (/proc/<pid>/cmdline), recorded when the child was first seen. */
  readonly cmdline: readonly string[];
}

const MAX_LEDGER_BYTES = 1024 * 1024;
const ledgerSchema = object<{ readonly children: readonly SpawnRecord[] }>({
  children: array(object<SpawnRecord>({ pid: integer, startTime: string, cmdline: array(string, 10_000) }), 10_000),
});

/** The ledger file of one channel (its socket path). */
export function ledgerPath(channelPath: string): string {
  return `${channelPath}.children.json`;
}

export function processCommandLine(pid: number): string[] | undefined {
  if (process.platform !== 'linux' || !Number.isInteger(pid) || pid <= 1) return undefined;
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (raw === '') return undefined; // a zombie or kernel thread
    return raw.endsWith('\0') ? raw.slice(0, -1).split('\0') : raw.split('\0');
  } catch {
    return undefined;
  }
}

/** What identifies `pid` now; undefined when it is gone or cannot be read (not Linux). */
export function spawnRecordOf(pid: number): SpawnRecord | undefined {
  const startTime = processStartTime(pid);
  const cmdline = processCommandLine(pid);
  return startTime === undefined || cmdline === undefined ? undefined : { pid, startTime, cmdline };
}

/** True while the process recorded is the one running under that pid (same start time, same command line). */
export function stillRunning(record: SpawnRecord): boolean {
  const now = spawnRecordOf(record.pid);
  return now !== undefined && now.startTime === record.startTime && sameWords(now.cmdline, record.cmdline);
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

/**
 * The records in `file`; [] when it is missing, unreadable, not a regular file of this user closed to others, too
 * big, or not the ledger's shape (`onProblem` says which).
 */
export function readLedger(file: string, onProblem: (message: string) => void = () => undefined): SpawnRecord[] {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return [];
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : stat.uid;
  if (!stat.isFile() || stat.uid !== uid || (stat.mode & 0o077) !== 0 || stat.size > MAX_LEDGER_BYTES) {
    onProblem(`ignoring ${file}: not a private file of this user`);
    return [];
  }
  try {
    const parsed = parseWith(ledgerSchema, JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.ok) return [...parsed.value.children];
    onProblem(`ignoring ${file}: ${parsed.problem}`);
  } catch (error) {
    onProblem(`ignoring ${file}: ${String(error)}`);
  }
  return [];
}

/** Replaces the ledger atomically (a reader sees the old or the new list, never half of one). */
export function writeLedger(file: string, children: readonly SpawnRecord[]): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ children }), { mode: 0o600 });
  renameSync(temporary, file);
}
