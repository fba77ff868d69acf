// Runs the bundled `mcp-health serve` as a child and knows where it serves; killed only by its own pid.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const READY_LIMIT_MS = 20_000;

export interface ServeProcess {
  readonly child: ChildProcess;
  /** http://HOST:PORT, without a path. */
  readonly base: string;
  output(): string;
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startServe(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--listen', '127.0.0.1:0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const result = await exited;
    clearTimeout(killer);
    return result;
  };
  return new Promise((resolve, reject) => {
    const limit = setTimeout(
      () => void stop().then(() => reject(new Error(`serve did not announce its address:\n${output}`))),
      READY_LIMIT_MS,
    );
    const onData = () => {
      const match = /serving probes on (http:\/\/[^/\s]+)\/probe/.exec(output);
      if (!match) return;
      clearTimeout(limit);
      child.stderr!.off('data', onData);
      resolve({ child, base: match[1]!, output: () => output, stop });
    };
    child.stderr!.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(limit);
      reject(new Error(`serve exited (${code}) before serving:\n${output}`));
    });
  });
}

/** The value of an unlabelled (or `labels`-matching) sample in a text exposition; undefined when absent. */
export function sampleValue(body: string, name: string, labels = ''): number | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + (labels ? `\\{${labels.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\}` : '');
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(body);
  return match ? Number(match[1]) : undefined;
}
