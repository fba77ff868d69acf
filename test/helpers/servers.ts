// Launch helpers for the real MCP test peers (test/fixtures/servers and server-everything).
// Every process is spawned detached, i.e. leader of its own process group, so stop() can take its descendants with it;
// a process-exit hook kills whatever a test forgot to stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export { freePort } from './freePort';

const READY_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 2_000;
const OUTPUT_TAIL_CHARS = 16_384;

function findRepoRoot(start: string): string {
  for (let dir = start, i = 0; i < 12; dir = path.dirname(dir), i++) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'mcp-health') return dir;
  }
  throw new Error(`mcp-health repository root not found above ${start}`);
}

const REPO_ROOT = findRepoRoot(__dirname);
export const FIXTURES: string = path.join(REPO_ROOT, 'test', 'fixtures', 'servers');
const EVERYTHING_ENTRY = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const LOCALHOST_PRELOAD = path.join(FIXTURES, 'localhost-preload.cjs');

export interface StdioLaunch {
  command: string;
  args: string[];
}

export function everythingStdio(): StdioLaunch {
  return { command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] };
}

export function faultStdio(fault: string, extraArgs: string[] = []): StdioLaunch {
  return {
    command: process.execPath,
    args: [path.join(FIXTURES, 'fault-server.mjs'), '--transport', 'stdio', '--fault', fault, ...extraArgs],
  };
}

export function modernStdio(): StdioLaunch {
  return { command: process.execPath, args: [path.join(FIXTURES, 'modern-server.mjs'), '--transport', 'stdio'] };
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningServer {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
  /** Settles when the server process exits (faults such as `exit:` end it on their own). */
  readonly exited: Promise<ExitInfo>;
  /** The last few KiB of its stderr, for assertion messages. */
  stderrTail(): string;
}

export interface RunningStdio {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
  readonly exited: Promise<ExitInfo>;
}

const running = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: the whole group is already gone.
  }
}

function killAllRunning(): void {
  for (const child of running) killGroup(child, 'SIGKILL');
  running.clear();
}

process.on('exit', killAllRunning);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAllRunning();
    // Keep the default "die on signal" unless someone else has taken charge of this signal.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

function exitPromise(child: ChildProcess): Promise<ExitInfo> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

function spawnTracked(
  command: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
  stdin: 'pipe' | 'ignore' = 'ignore',
): { child: ChildProcess; exited: Promise<ExitInfo> } {
  const child = spawn(command, args, { detached: true, stdio: [stdin, 'pipe', 'pipe'], env: env ?? process.env });
  if (child.pid === undefined) throw new Error(`failed to spawn ${command} ${args.join(' ')}`);
  running.add(child);
  const exited = exitPromise(child);
  void exited.then(() => running.delete(child));
  return { child, exited };
}

/** SIGTERM to the group, SIGKILL after a grace period, then one SIGKILL sweep for descendants that outlived the leader. */
async function stopGroup(child: ChildProcess, exited: Promise<ExitInfo>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    killGroup(child, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_GRACE_MS)));
    const outcome = await Promise.race([exited, graceOver]);
    clearTimeout(timer);
    if (outcome === 'timeout') killGroup(child, 'SIGKILL');
    await exited;
  }
  killGroup(child, 'SIGKILL');
  running.delete(child);
}

/** For stdio peers: stdin/stdout are the caller's protocol channel; stderr is left to the caller too. */
export function spawnStdio(launch: StdioLaunch, env?: NodeJS.ProcessEnv): RunningStdio {
  const { child, exited } = spawnTracked(launch.command, launch.args, env, 'pipe');
  return { child, pid: child.pid as number, exited, stop: () => stopGroup(child, exited) };
}

interface ReadyLine {
  match: RegExpMatchArray;
  stderrTail: () => string;
}

/** Waits for a line matching `pattern` on stdout or stderr; rejects with the stderr tail on exit or timeout. */
function waitForReadyLine(child: ChildProcess, exited: Promise<ExitInfo>, pattern: RegExp, what: string): Promise<ReadyLine> {
  let stderrText = '';
  const stderrTail = () => stderrText;
  return new Promise<ReadyLine>((resolve, reject) => {
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
    };
    const scan = (source: NodeJS.ReadableStream, keepTail: boolean) => {
      let pending = '';
      source.setEncoding('utf8');
      source.on('data', (chunk: string) => {
        if (keepTail) stderrText = (stderrText + chunk).slice(-OUTPUT_TAIL_CHARS);
        if (settled) return;
        pending = (pending + chunk).slice(-OUTPUT_TAIL_CHARS);
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const match = line.match(pattern);
          if (match) return settle(() => resolve({ match, stderrTail }));
        }
      });
    };
    if (child.stdout) scan(child.stdout, false);
    if (child.stderr) scan(child.stderr, true);
    const timer = setTimeout(() => {
      settle(() => {
        killGroup(child, 'SIGKILL');
        reject(new Error(`${what} not ready within ${READY_TIMEOUT_MS} ms; stderr:\n${stderrText}`));
      });
    }, READY_TIMEOUT_MS);
    void exited.then(({ code, signal }) =>
      settle(() => reject(new Error(`${what} exited (code ${code}, signal ${signal}) before it was ready; stderr:\n${stderrText}`))),
    );
  });
}

async function startListening(
  what: string,
  args: string[],
  urlPath: string,
  env?: NodeJS.ProcessEnv,
  pattern = /^LISTENING (\d+)/,
): Promise<RunningServer & { match: RegExpMatchArray }> {
  const { child, exited } = spawnTracked(process.execPath, args, env);
  try {
    const { match, stderrTail } = await waitForReadyLine(child, exited, pattern, what);
    const port = Number(match[1]);
    return {
      url: `http://127.0.0.1:${port}${urlPath}`,
      port,
      pid: child.pid as number,
      exited,
      stderrTail,
      match,
      stop: () => stopGroup(child, exited),
    };
  } catch (error) {
    await stopGroup(child, exited);
    throw error;
  }
}

/** server-everything over HTTP, forced onto 127.0.0.1 by the preload, on a port the OS picks (no free-port race). */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse'): Promise<RunningServer> {
  const args = ['-r', LOCALHOST_PRELOAD, EVERYTHING_ENTRY, mode];
  return startListening(`server-everything ${mode}`, args, mode === 'sse' ? '/sse' : '/mcp', { ...process.env, PORT: '0' });
}

export async function startFaultHttp(transport: 'http' | 'sse', fault = 'none', extraArgs: string[] = []): Promise<RunningServer> {
  const args = [path.join(FIXTURES, 'fault-server.mjs'), '--transport', transport, '--port', '0', '--fault', fault, ...extraArgs];
  return startListening(`fault-server ${transport} ${fault}`, args, transport === 'sse' ? '/sse' : '/mcp');
}

/** `port` 0 lets the OS pick; a given port brings a stopped server back at the same URL. */
export async function startModernHttp(port = 0): Promise<RunningServer> {
  return startListening(
    'modern-server http',
    [path.join(FIXTURES, 'modern-server.mjs'), '--transport', 'http', '--port', String(port)],
    '/mcp',
  );
}

export async function startSilentTcp(): Promise<RunningServer> {
  return startListening('silent-tcp', [path.join(FIXTURES, 'silent-tcp.mjs'), '--port', '0'], '');
}

export interface StallProxy extends RunningServer {
  stall(): Promise<void>;
  resume(): Promise<void>;
  /** Destroys every connection open through the proxy at this moment; later ones pass. */
  cut(): Promise<void>;
}

/** `urlPath` is appended to the proxy's URL, e.g. '/mcp' when the target is a Streamable HTTP server. */
export async function startStallProxy(targetPort: number, urlPath = ''): Promise<StallProxy> {
  const args = [path.join(FIXTURES, 'stall-proxy.mjs'), '--target', String(targetPort), '--port', '0', '--control-port', '0'];
  const server = await startListening('stall-proxy', args, urlPath, undefined, /^LISTENING (\d+) CONTROL (\d+)/);
  const control = async (action: 'stall' | 'resume' | 'cut') => {
    const response = await fetch(`http://127.0.0.1:${server.match[2]}/${action}`, { method: 'POST', signal: AbortSignal.timeout(5_000) });
    if (!response.ok) throw new Error(`stall-proxy /${action} answered ${response.status}`);
    await response.arrayBuffer();
  };
  return { ...server, stall: () => control('stall'), resume: () => control('resume'), cut: () => control('cut') };
}
