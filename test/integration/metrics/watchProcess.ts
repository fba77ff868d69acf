// Runs the bundled `mcp-health watch --metrics` as a child and knows where it serves; killed only by its own pid.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
export const CLI = path.join(ROOT, 'dist/cli.js');
const READY_LIMIT_MS = 20_000;

export interface WatchProcess {
  readonly child: ChildProcess;
  readonly metricsUrl: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL if it outlives `graceMs`. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startWatch(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<WatchProcess> {
  const child = spawn(process.execPath, [CLI, 'watch', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const stop = async (graceMs = 15_000) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const result = await exited;
    clearTimeout(killer);
    return result;
  };
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      void stop(0).then(() => reject(new Error(`watch did not announce its metrics address; stderr:\n${stderr}`)));
    }, READY_LIMIT_MS);
    const onData = () => {
      const match = /metrics on (http:\/\/\S+\/metrics)/.exec(stderr);
      if (!match) return;
      clearTimeout(limit);
      child.stderr!.off('data', onData);
      resolve({ child, metricsUrl: match[1]!, stdout: () => stdout, stderr: () => stderr, exited, stop });
    };
    child.stderr!.on('data', onData);
    void exited.then(({ code }) => {
      clearTimeout(limit);
      reject(new Error(`watch exited (${code}) before serving metrics; stderr:\n${stderr}`));
    });
  });
}
