// Launches the bench's own HTTP peer (bench/peers/handshake-http-peer.mjs) as a separate process.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { httpPeerScript } from './paths';
import { killChild, spawnTracked, waitForListening } from './processes';

export interface HttpPeer {
  readonly child: ChildProcess;
  readonly port: number;
  /** The MCP endpoint. */
  readonly url: string;
  /** Freezes the whole process: sockets stay open, nothing answers. */
  stop(): void;
  resume(): void;
  kill(): Promise<void>;
  sessionIds(): Promise<string[]>;
  /** TCP connections accepted and MCP requests served since start (the stats request itself excluded). */
  stats(): Promise<PeerStats>;
}

export interface PeerStats {
  readonly connections: number;
  readonly requests: number;
  readonly sessions: number;
}

export async function startHttpPeer(port = 0, startTimeoutMs = 15_000, tools = 0): Promise<HttpPeer> {
  const child = spawnTracked(process.execPath, [httpPeerScript, '--port', String(port), ...(tools > 0 ? ['--tools', String(tools)] : [])]);
  const boundPort = await waitForListening(child, startTimeoutMs);
  const origin = `http://127.0.0.1:${boundPort}`;
  return {
    child,
    port: boundPort,
    url: `${origin}/mcp`,
    stop: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    kill: () => killChild(child),
    async sessionIds() {
      const response = await fetch(`${origin}/debug/sessions`);
      return (await response.json()) as string[];
    },
    async stats() {
      const response = await fetch(`${origin}/debug/stats`);
      const stats = (await response.json()) as PeerStats;
      // The stats request opened a connection of its own (or reused one); count it out.
      return { ...stats, connections: Math.max(0, stats.connections - 1) };
    },
  };
}

/** Restarts a peer on the port it had, retrying briefly while the kernel frees the port. */
export async function restartHttpPeerOn(port: number): Promise<HttpPeer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      return await startHttpPeer(port);
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw lastError;
}

export async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
}
