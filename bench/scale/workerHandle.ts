// The parent's side of one scale worker: start it, wait for READY, drive its phases, stop it; every wait bounded.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { killChild, spawnTracked } from '../lib/processes';
import type { PhaseCommand, PhaseReport, ReadyReport, WorkerRequest } from './worker';

export class WorkerHandle {
  private readonly lines: string[] = [];
  private readonly waiters = new Set<() => void>();
  private stderr = '';
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly label: string,
  ) {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      this.lines.push(line);
      this.wake();
    });
    child.stderr?.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString('utf8')).slice(-3000)));
    child.once('exit', () => {
      this.exited = true;
      this.wake();
    });
  }

  /** `profileDir` set: the worker writes V8 CPU profiles there (one per thread). */
  static start(script: string, request: WorkerRequest, label: string, cwd: string, profileDir?: string): WorkerHandle {
    const profileArgs: string[] = [];
    if (profileDir) {
      rmSync(profileDir, { recursive: true, force: true });
      mkdirSync(profileDir, { recursive: true });
      profileArgs.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
    }
    const child = spawnTracked(process.execPath, ['--expose-gc', ...profileArgs, script, JSON.stringify(request)], {
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return new WorkerHandle(child, label);
  }

  ready(timeoutMs: number): Promise<ReadyReport> {
    return this.next<ReadyReport>('READY ', timeoutMs);
  }

  phase(command: Omit<PhaseCommand, 'cmd'>): Promise<PhaseReport> {
    this.child.stdin?.write(`${JSON.stringify({ cmd: 'phase', ...command })}\n`);
    return this.next<PhaseReport>('PHASE ', command.settleMs + command.windowMs + 30_000);
  }

  /** Asks politely (the worker ends its sessions), then kills whatever is left. */
  async stop(timeoutMs = 15_000): Promise<void> {
    this.child.stdin?.end(`${JSON.stringify({ cmd: 'stop' })}\n`);
    const deadline = Date.now() + timeoutMs;
    while (!this.exited && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await killChild(this.child);
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private async next<T>(prefix: string, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.lines.findIndex((line) => line.startsWith(prefix));
      if (index !== -1) {
        const [line] = this.lines.splice(index, 1);
        return JSON.parse(line.slice(prefix.length)) as T;
      }
      if (this.exited) throw new Error(`${this.label} worker exited before ${prefix.trim()}: ${this.stderr.slice(-1500)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.label} worker gave no ${prefix.trim()} within ${timeoutMs} ms: ${this.stderr.slice(-1500)}`);
      await new Promise<void>((resolve) => {
        const waiter = (): void => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        };
        const timer = setTimeout(waiter, left);
        this.waiters.add(waiter);
      });
    }
  }
}
