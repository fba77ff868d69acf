// The bind of a channel's path, which doubles as an election: the first process to bind leads, a live listener
// keeps it, and a socket file left by a crashed process is taken over. Binds and stale-socket removals of all
// processes happen under one lock file, so none of them mistakes another's fresh socket for a stale one.

import { createConnection, createServer, type Server } from 'node:net';
import { chmodSync, linkSync, lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirnameOf, ensurePrivateDirectory, isWindows } from './channelPaths';

/** Test seams: awaited at the two points of a bind where another process's step can interleave. */
export interface ChannelBindPauses {
  /** After reading a lock's holder and finding it dead, before removing that lock. */
  afterStaleLockRead?(): Promise<void>;
  /** After a socket file failed to answer, before removing it as stale. */
  beforeStaleSocketRemoval?(): Promise<void>;
}

/** Waiting for another process's bind (or take-over) to finish: up to about 5 s. */
const LOCK_ATTEMPTS = 100;
const LOCK_RETRY_MS = 25;
const PROBE_TIMEOUT_MS = 1000;

/**
 * Binds `path` and resolves to the listening server, or to undefined when a live process already listens there
 * (someone else holds the channel). A socket file whose owner died is removed first.
 */
export async function bindChannel(path: string, pauses: ChannelBindPauses | undefined): Promise<Server | undefined> {
  if (isWindows) {
    // A pipe vanishes with its owner, so "in use" always means alive, and creating one is atomic.
    const server = createServer();
    const bound = await bind(server, path);
    if (bound === 'ok') return server;
    if (bound === 'in-use') return undefined;
    throw bound;
  }
  ensurePrivateDirectory(dirnameOf(path));
  const lock = `${path}.lock`;
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (await takeLock(lock, pauses)) {
      try {
        return await bindOrTakeOver(path, pauses);
      } finally {
        releaseLock(lock);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS * (1 + Math.random())));
  }
  throw new Error(`${lock} stayed locked; another process may be stuck binding ${path}`);
}

/**
 * Under the lock, so binds and stale-socket removals of all processes are serialised: without it one process could
 * probe another's socket in the instant between its bind() and listen() (refused, so "stale") and unlink it, or a
 * reused inode number could pass for the stale file, leaving two listeners that each believe they lead.
 */
async function bindOrTakeOver(path: string, pauses: ChannelBindPauses | undefined): Promise<Server | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const server = createServer();
    const bound = await bind(server, path);
    if (bound === 'ok') {
      chmodSync(path, 0o600);
      return server;
    }
    if (bound !== 'in-use') throw bound;
    const probed = inodeOf(path);
    if (await answers(path)) return undefined;
    await pauses?.beforeStaleSocketRemoval?.();
    // Stale: left by a process that died (no one accepts on it). Removed only if it is still the very file that did not
    // answer: should the lock ever be held twice, a live socket bound meanwhile at this path is never taken for it.
    if (probed === undefined || inodeOf(path) !== probed) continue;
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
  }
  return undefined;
}

/**
 * An exclusive lock file holding our pid. One left by a dead process is broken (and the caller retries): moved aside
 * atomically and checked, so of several processes that found the same dead holder only one removes it, and a fresh
 * lock taken meanwhile by a live process is put back rather than deleted (deleting it by name let two processes hold
 * the lock at once, then remove each other's socket as stale: two leaders).
 */
async function takeLock(lock: string, pauses: ChannelBindPauses | undefined): Promise<boolean> {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let content: string;
  try {
    content = readFileSync(lock, 'utf8');
  } catch {
    return false; // released meanwhile
  }
  const holder = Number(content);
  // An empty file is a lock being written right now: its holder is alive.
  if (Number.isInteger(holder) && holder > 0 && !processAlive(holder)) {
    await pauses?.afterStaleLockRead?.();
    breakStaleLock(lock, content);
  }
  return false;
}

let staleLocksBroken = 0;

function breakStaleLock(lock: string, staleContent: string): void {
  // Unique among the processes breaking the same lock (the pid) and within this one (the counter); not a secret, so it
  // needs no crypto, which a guard would otherwise load only for this.
  const aside = `${lock}.stale-${process.pid}-${++staleLocksBroken}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // another process broke it first
  }
  let moved: string | undefined;
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    // Unreadable: treat as what we meant to remove.
  }
  if (moved !== undefined && moved !== staleContent) {
    // A live process's lock, taken after the stale one was already broken: give it back (link fails only if the name
    // was taken again in between, by a process that then holds it in its own right).
    try {
      linkSync(aside, lock);
    } catch {
      // Taken again meanwhile.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Nothing to clean.
  }
}

function inodeOf(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

function releaseLock(lock: string): void {
  try {
    unlinkSync(lock);
  } catch {
    // Removed as stale by another process after a very long hold; nothing to do.
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by someone else (a reused pid): the lock file is ours, so treat it as held.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function bind(server: Server, path: string): Promise<'ok' | 'in-use' | Error> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      server.close();
      resolve(error.code === 'EADDRINUSE' ? 'in-use' : error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve('ok');
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(path);
  });
}

/** True when something accepts a connection on `path` within a second. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const done = (alive: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(alive);
    };
    // A listener too busy to accept within the timeout is still alive: treating it as stale would steal its path.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    socket.once('connect', () => done(true));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}
