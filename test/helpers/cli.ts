// Runs the bundled CLI (dist/cli.js, built by `node esbuild.js`) the way a user does, bounded by a SIGKILL guard.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
export const CLI = path.join(REPO_ROOT, 'dist/cli.js');
const KILL_AFTER_MS = 60_000;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

export interface CliOptions {
  /** Default: the repository root. */
  cwd?: string;
  /** Added to this process's environment (NO_COLOR=1 is always set). */
  env?: NodeJS.ProcessEnv;
  /** Names in this process's environment the CLI must not inherit (a developer's proxy variables, say). */
  dropEnv?: RegExp;
  /** Each complete stdout line as it arrives, for tests that act on a run in progress. */
  onStdoutLine?: (line: string) => void;
  onStart?: (child: ChildProcess) => void;
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const inherited = options.dropEnv
      ? Object.fromEntries(Object.entries(process.env).filter(([name]) => !options.dropEnv!.test(name)))
      : process.env;
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...inherited, NO_COLOR: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!options.onStdoutLine) return;
      pending += chunk;
      for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
        options.onStdoutLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const guard = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, elapsedMs: performance.now() - started });
    });
    options.onStart?.(child);
  });
}
