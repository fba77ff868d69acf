// Helpers for driving `mcp-health guard` (the built CLI) with real MCP clients.

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { isAlive } from '../../helpers/processes';
import type { StdioLaunch } from '../../helpers/servers';

export { isAlive };

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const CLI = path.join(REPO_ROOT, 'dist', 'cli.js');
if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "node esbuild.js" before the guard tests`);

/** The command line a client would run: the guard in front of the server. */
export function guarded(server: StdioLaunch, flags: string[] = []): StdioLaunch {
  return { command: process.execPath, args: [CLI, 'guard', ...flags, '--', server.command, ...server.args] };
}

/** Collects a guard's stderr and answers "has this line appeared yet?". */
export class StderrWatch {
  private text = '';
  private readonly waiters: Array<() => void> = [];

  constructor(stream: Readable | null) {
    if (!stream) throw new Error('the transport was not created with stderr: "pipe"');
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      this.text += chunk;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  get all(): string {
    return this.text;
  }

  /** The upstream pid of each generation, in order, from the guard's "upstream started" lines. */
  upstreamPids(): number[] {
    return [...this.text.matchAll(/upstream started \(pid (\d+), generation (\d+)\)/g)].map((match) => Number(match[1]));
  }

  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.text.match(pattern);
      if (match) return match;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`guard stderr never matched ${pattern}; it was:\n${this.text.slice(-4000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitForGeneration(generation: number): Promise<number> {
    const match = await this.waitFor(new RegExp(`upstream started \\(pid (\\d+), generation ${generation}\\)`));
    return Number(match[1]);
  }
}

export { waitUntilDead } from '../../helpers/processes';

/** Something with the SDK Transport shape (v1 and v2 differ only in types). */
export interface AnyTransport {
  start(): Promise<void>;
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: never, extra?: never) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  sessionId?: string;
  setProtocolVersion?: (version: string) => void;
}

/**
 * Wraps a client transport so the test sees every message the client receives and whether the connection closed,
 * without touching the client: the client installs its handlers on the wrapper.
 */
export function recording<T extends AnyTransport>(inner: T): { transport: T; received: unknown[]; closed: () => boolean } {
  const received: unknown[] = [];
  let closed = false;
  const wrapper = {
    start: () => {
      inner.onmessage = ((message: unknown, extra?: unknown) => {
        received.push(message);
        (wrapper.onmessage as ((m: unknown, e?: unknown) => void) | undefined)?.(message, extra);
      }) as never;
      inner.onclose = () => {
        closed = true;
        wrapper.onclose?.();
      };
      inner.onerror = (error: Error) => wrapper.onerror?.(error);
      return inner.start();
    },
    send: (message: unknown, options?: unknown) => inner.send(message, options),
    close: () => inner.close(),
    setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
    get sessionId() {
      return inner.sessionId;
    },
    onmessage: undefined as unknown,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
  };
  return { transport: wrapper as unknown as T, received, closed: () => closed };
}
