// Every process the bench starts goes through here, so that teardown kills exactly those and nothing else.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';

const started = new Set<ChildProcess>();

export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

/** Resolves with the port from the child's `LISTENING <port>` line; rejects on exit or after timeoutMs. */
export function waitForListening(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => finish(new Error(`no LISTENING line within ${timeoutMs} ms; stderr: ${stderr.slice(-500)}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const match = /LISTENING (\d+)/.exec(buffered);
      if (match) finish(undefined, Number(match[1]));
    };
    const onStderr = (chunk: Buffer): void => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    };
    const onExit = (code: number | null): void => finish(new Error(`exited (${code}) before listening; stderr: ${stderr.slice(-500)}`));
    function finish(error?: Error, port?: number): void {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onStderr);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(port as number);
    }
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onStderr);
    child.once('exit', onExit);
  });
}

/** Kills one child we started and waits (bounded) for it to be gone. A stopped child is continued so SIGKILL lands at once. */
export async function killChild(child: ChildProcess, timeoutMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGCONT');
  child.kill('SIGKILL');
  await Promise.race([exited, sleep(timeoutMs)]);
}

export async function killAllStarted(): Promise<void> {
  await Promise.all([...started].map((child) => killChild(child)));
}

/** A port that was free a moment ago (for peers that must come back on the same port). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
