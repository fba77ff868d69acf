// Shared bits of the src/mcp integration tests: server configs, a collecting logger, bounded waiting.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ConnectError, type Connection } from '../../../src/core/connection';
import type { ServerConfig } from '../../../src/core/model';

export const PEERS = path.join(__dirname, 'peers');

const source = { file: '/tmp/mcp-health-test.json', line: 1, column: 1, format: 'vscode', scope: 'user' } as const;

export function stdioServer(name: string, launch: { command: string; args: string[] }, extra: Partial<ServerConfig> = {}): ServerConfig {
  return { id: `${source.file}#${name}`, name, source, transport: 'stdio', command: launch.command, args: launch.args, ...extra };
}

export function httpServer(name: string, url: string, transport: 'http' | 'sse' = 'http', extra: Partial<ServerConfig> = {}): ServerConfig {
  return { id: `${source.file}#${name}`, name, source, transport, url, ...extra };
}

export function peer(script: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [path.join(PEERS, script), ...args] };
}

/** Wraps a launch so every spawn appends its pid to a file: `spawns()` reads how many happened. */
export function counted(launch: { command: string; args: string[] }): {
  launch: { command: string; args: string[] };
  spawns(): number;
  pids(): number[];
  dispose(): void;
} {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-spawns-'));
  const file = path.join(dir, 'pids');
  const [script, ...args] = launch.args;
  const pids = (): number[] => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  return {
    launch: { command: launch.command, args: [path.join(PEERS, 'counting-launcher.mjs'), file, script, ...args] },
    spawns: () => pids().length,
    pids,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export { collectingLogger, type CollectingLogger } from '../../helpers/collectingLogger';

/** Running, not merely unreaped: an orphaned zombie waits for PID 1, which in a container may take its time. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()?.[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `condition` every 20 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return condition();
}

/** Tracks connections a test opened so `after` can close every one, even after a failed assertion. */
export class OpenConnections {
  private readonly open: Connection[] = [];

  add<T extends Connection>(connection: T): T {
    this.open.push(connection);
    return connection;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((connection) => connection.close()));
  }
}

/** The ConnectError a connect attempt must end in. */
export async function connectError(promise: Promise<unknown>): Promise<ConnectError> {
  const error = await promise.then(
    () => assert.fail('connect should have failed'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ConnectError, `expected a ConnectError, got ${String(error)}`);
  return error;
}
