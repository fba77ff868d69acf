// Where a local channel lives and who may use it: the per-user directory, a topic's socket path (a named pipe on
// Windows), and the checks that the directory and socket are this user's alone before anything connects.

import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

export const isWindows = process.platform === 'win32';
const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function channelDirectory(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime && runtime.startsWith('/') ? join(runtime, 'mcp-health') : join(home, '.cache', 'mcp-health', 'run');
}

export function channelPath(topic: string, directory: string = channelDirectory()): string {
  if (!TOPIC.test(topic)) throw new Error(`invalid channel topic: ${JSON.stringify(topic)}`);
  if (isWindows) return `\\\\.\\pipe\\mcp-health-${safeUserName()}-${topic}`;
  return join(directory, `${topic}.sock`);
}

function safeUserName(): string {
  try {
    return userInfo().username.replace(/[^A-Za-z0-9._-]/g, '_');
  } catch {
    return 'user';
  }
}

/** Creates the channel directory private to this user, tightening it if it already exists with a looser mode. */
export function ensurePrivateDirectory(directory: string): void {
  if (isWindows) return;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = statSync(directory);
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    throw new Error(`${directory} belongs to another user; refusing to use it for a private channel`);
  }
  if ((stat.mode & 0o777) !== 0o700) chmodSync(directory, 0o700);
}

/** A channel path another user owns or can write: never connected to. */
export class ChannelRefusedError extends Error {
  readonly code = 'ECHANNELREFUSED';
}

/**
 * Throws ChannelRefusedError unless `path`'s directory and `path` itself are this user's and closed to everyone else
 * (a directory, a socket; lstat, so a symlink planted in their place is refused too). No-op on Windows (pipes).
 */
export function verifyPrivateChannel(path: string): void {
  if (isWindows || typeof process.getuid !== 'function') return;
  const uid = process.getuid();
  const check = (target: string, kind: 'directory' | 'socket'): void => {
    let stat;
    try {
      stat = lstatSync(target);
    } catch {
      return; // absent: connect fails with ENOENT, as for nobody listening
    }
    const isKind = kind === 'directory' ? stat.isDirectory() : stat.isSocket();
    const problem = !isKind
      ? `is not a ${kind}${stat.isSymbolicLink() ? ' (a symbolic link)' : ''}`
      : stat.uid !== uid
        ? `belongs to uid ${stat.uid}, not to this user (uid ${uid})`
        : (stat.mode & 0o077) !== 0
          ? `has mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}: other users could read or replace it`
          : null;
    if (problem) throw new ChannelRefusedError(`refusing the local channel ${path}: ${target} ${problem}`);
  };
  check(dirnameOf(path), 'directory');
  check(path, 'socket');
}

export function dirnameOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}
