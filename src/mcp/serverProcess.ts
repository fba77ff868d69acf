// Starting and stopping a stdio server process, shared by the monitor's transport and the guard's upstream. No SDK
// here: the guard's own bundle (dist/guard.js) is built from this without the SDK and zod.

import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import type { Readable } from 'node:stream';
import { terminateGroup, untrackGroup } from './processGroup';
import { settlesWithin } from './settlesWithin';
import { resolveLaunch } from './windowsLaunch';

export interface StdioLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

const isWindows = process.platform === 'win32';

/**
 * The one place a server process is started (the monitor's connections and the guard's upstreams): directly, never
 * through a shell, as the leader of its own process group on POSIX so a kill reaches the helpers it starts.
 */
export function spawnServer(launch: StdioLaunch): ChildProcess {
  const { command, args, env, cwd } = launch;
  // A bare name is found on PATH, never in the cwd; on Windows, npx/uvx are .cmd files CreateProcess cannot run.
  const resolved = resolveLaunch(command, args, { platform: process.platform, env, cwd: cwd ?? process.cwd(), isFile, isExecutable });
  return spawn(resolved.command, [...resolved.args], {
    ...(resolved.argv0 !== undefined ? { argv0: resolved.argv0 } : {}),
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
    windowsVerbatimArguments: resolved.windowsVerbatimArguments,
    detached: !isWindows,
    windowsHide: true,
  });
}

export function describeExit(code: number | null, signal: NodeJS.Signals | string | null): string {
  if (signal) return `Process was killed by ${signal}`;
  return `Process exited with code ${code ?? 'unknown'}`;
}

/**
 * Ends a server started by spawnServer: stdin EOF first (many servers exit cleanly on it), signals to its process group
 * only for those that do not, then its pipes destroyed, so a grandchild holding them cannot keep this process alive.
 */
export async function stopServer(
  child: ChildProcess,
  exited: Promise<void>,
  running: boolean,
  grace: { readonly stdinCloseGraceMs: number; readonly killGraceMs: number },
): Promise<void> {
  if (child.pid === undefined) return;
  if (running) {
    child.stdin?.end();
    await settlesWithin(exited, grace.stdinCloseGraceMs);
  }
  await terminateGroup(child, exited, grace.killGraceMs);
  untrackGroup(child.pid);
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.stdin?.destroy();
}

/** Resolves when a child's output stream has ended (its last bytes read), or after maxMs at the latest. */
export function drained(stream: Readable | null | undefined, maxMs: number): Promise<void> {
  if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, maxMs);
    stream.once('close', done);
    stream.once('end', done);
    function done(): void {
      clearTimeout(timer);
      stream?.off('close', done);
      stream?.off('end', done);
      resolve();
    }
  });
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return isFile(file);
  } catch {
    return false;
  }
}
