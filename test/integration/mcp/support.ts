// Shared bits of the src/mcp integration tests: server configs, a collecting logger, bounded waiting.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { ConnectError, type Connection, type Connector } from '../../../src/core/connection';
import type { ServerConfig } from '../../../src/core/model';
import { createNodeConnector } from '../../../src/mcp';
import { serverConfig, userSource } from '../../helpers/serverConfig';
import { QuirkyHttpServer } from './quirkyHttp';

export const PEERS = path.join(__dirname, 'peers');

const source = userSource('/tmp/mcp-health-test.json');

export function stdioServer(name: string, launch: { command: string; args: string[] }, extra: Partial<ServerConfig> = {}): ServerConfig {
  return serverConfig(name, { source, command: launch.command, args: launch.args, ...extra });
}

export function httpServer(name: string, url: string, transport: 'http' | 'sse' = 'http', extra: Partial<ServerConfig> = {}): ServerConfig {
  return serverConfig(name, { source, transport, url, ...extra });
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

/**
 * Call inside a describe: a QuirkyHttpServer listening for the whole suite and reset before each test, a fresh real
 * connector for each test, and every connection the test opened closed after it.
 */
export function quirkyLab(): { lab: QuirkyHttpServer; connections: OpenConnections; connector: () => Connector } {
  const lab = new QuirkyHttpServer();
  const connections = new OpenConnections();
  let connector: Connector | undefined;
  before(() => lab.listen());
  after(() => lab.close());
  beforeEach(() => {
    lab.reset();
    connector = createNodeConnector();
  });
  afterEach(async () => {
    await connections.closeAll();
    connector?.dispose?.();
  });
  return {
    lab,
    connections,
    connector: () => {
      if (!connector) throw new Error('quirkyLab: the connector exists only inside a test');
      return connector;
    },
  };
}
