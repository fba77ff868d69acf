// A bare newline-delimited JSON-RPC client over a child's pipes: the floor our stdio probe is compared with.
import type { ChildProcess } from 'node:child_process';
import { spawnTracked, killChild } from './processes';

export interface RawStdioPeer {
  readonly pid: number;
  /** Writes one request line and resolves with the parsed response carrying the same id. */
  request(body: { id: number; method: string; params?: unknown }, timeoutMs: number): Promise<unknown>;
  notify(method: string): void;
  close(): Promise<void>;
}

export function spawnRawStdio(command: string, args: readonly string[]): RawStdioPeer {
  const child: ChildProcess = spawnTracked(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, (message: unknown) => void>();
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
      let message: { id?: unknown };
      try {
        message = JSON.parse(line) as { id?: unknown };
      } catch {
        continue;
      }
      if (typeof message.id === 'number') {
        const resolve = waiting.get(message.id);
        waiting.delete(message.id);
        resolve?.(message);
      }
    }
  });
  return {
    pid: child.pid ?? -1,
    request(body, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(body.id);
          reject(new Error(`raw stdio request ${body.id} timed out`));
        }, timeoutMs);
        waiting.set(body.id, (message) => {
          clearTimeout(timer);
          resolve(message);
        });
        child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...body })}\n`);
      });
    },
    notify(method) {
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
    close: () => killChild(child),
  };
}

export async function initializeRaw(peer: RawStdioPeer, protocolVersion: string): Promise<void> {
  await peer.request(
    { id: 0, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'bench-raw', version: '0' } } },
    10_000,
  );
  peer.notify('notifications/initialized');
}
