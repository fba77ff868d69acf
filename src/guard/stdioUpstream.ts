// One stdio upstream child, spawned directly (no shell) as the leader of its own process group so a kill reaches the
// helpers it started; its stderr is passed through to the guard's stderr and kept as a tail for exit reports.

import type { ChildProcess } from 'node:child_process';
import type { SandboxPolicy } from '../core/model';
import type * as SandboxLaunch from '../mcp/sandboxLaunch';
import { describeExit, drained, spawnServer, stopServer, type StdioLaunch } from '../mcp/serverProcess';
import { terminateGroup, trackGroup, untrackGroup } from '../mcp/processGroup';
import { StderrTail } from '../mcp/stderrTail';
import { LineSplitter } from '../mcp/lineSplitter';
import { TickWriter } from './tickWriter';
import type { Upstream, UpstreamEvents } from './upstream';

export interface StdioUpstreamOptions {
  readonly maxLineBytes: number;
  readonly killGraceMs: number;
  readonly stdinCloseGraceMs: number;
  readonly stderrTailBytes: number;
  /** Where the child's stderr goes as it arrives (the guard's own stderr). */
  readonly stderr: (text: string) => void;
  /** Started only inside this sandbox; when it cannot be set up, start() rejects and nothing is spawned. */
  readonly sandbox?: SandboxPolicy;
}

const STDERR_DRAIN_MS = 50;

export class StdioUpstream implements Upstream {
  private child: ChildProcess | null = null;
  private readonly tail: StderrTail;
  private exitedResolve!: () => void;
  private readonly exited = new Promise<void>((resolve) => (this.exitedResolve = resolve));
  private closing = false;
  private closeDone: Promise<void> | null = null;
  private violation: string | null = null;
  private toChild: TickWriter | null = null;

  constructor(
    private readonly launch: StdioLaunch,
    private readonly options: StdioUpstreamOptions,
  ) {
    this.tail = new StderrTail(options.stderrTailBytes);
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async start(events: UpstreamEvents): Promise<void> {
    const { command } = this.launch;
    const launch = this.options.sandbox ? await sandboxed(this.launch, this.options.sandbox) : this.launch;
    const child = spawnServer(launch);
    this.child = child;
    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        if (child.pid !== undefined) trackGroup(child.pid);
        this.wire(child, events);
        resolve();
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (child.pid === undefined) reject(new Error(spawnFailure(command, error)));
      });
    });
  }

  private wire(child: ChildProcess, events: UpstreamEvents): void {
    const splitter = new LineSplitter(
      {
        line: (raw) => {
          if (!this.closing) events.line(raw);
        },
        overflow: (bytes) => {
          this.violation = `stdout carried ${bytes} bytes without a newline (limit ${this.options.maxLineBytes})`;
          void terminateGroup(child, this.exited, this.options.killGraceMs);
        },
      },
      this.options.maxLineBytes,
    );
    child.stdout?.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.tail.append(text);
      this.options.stderr(text);
    });
    // A write racing the child's death fails with EPIPE; the exit itself is what gets reported.
    child.stdin?.on('error', () => undefined);
    if (child.stdin) this.toChild = new TickWriter(child.stdin);
    child.stdin?.on('drain', () => events.drain());
    child.once('exit', (code, signal) => {
      this.exitedResolve();
      if (this.closing) return;
      void terminateGroup(child, this.exited, this.options.killGraceMs).then(() => untrackGroup(child.pid ?? -1));
      void drained(child.stderr, STDERR_DRAIN_MS).then(() => {
        if (this.closing) return;
        events.ended({
          message: this.violation ?? describeExit(code, signal).replace(/^Process/, 'upstream'),
          exitCode: code,
          signal,
          stderrTail: this.tail.toString(),
        });
      });
    });
  }

  write(raw: Buffer): boolean {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || !this.toChild) return true;
    return this.toChild.write(raw);
  }

  pauseReading(): void {
    this.child?.stdout?.pause();
  }

  resumeReading(): void {
    this.child?.stdout?.resume();
  }

  get stderrTail(): string {
    return this.tail.toString();
  }

  close(): Promise<void> {
    this.closing = true;
    this.closeDone ??= this.shutdown();
    return this.closeDone;
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    if (!child) return;
    // Lines written this tick go before the child's stdin is closed.
    this.toChild?.flush();
    await stopServer(child, this.exited, child.exitCode === null && child.signalCode === null, this.options);
  }
}

/**
 * The sandbox launcher (and the crypto, os and fs/promises it needs) is loaded only for a sandboxed server: a guard
 * lives as long as its client's session, one per guarded server, and most run without a sandbox.
 */
async function sandboxed(launch: StdioLaunch, policy: SandboxPolicy): Promise<StdioLaunch> {
  // A require() the bundler keeps lazy (the module is initialised on this first call), typed by the import above.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { sandboxedLaunch } = require('../mcp/sandboxLaunch') as typeof SandboxLaunch;
  return sandboxedLaunch(launch, policy);
}

function spawnFailure(command: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return `cannot start "${command}": command not found (ENOENT); check the command name and PATH`;
  if (error.code === 'EACCES') return `cannot start "${command}": permission denied (EACCES)`;
  return `cannot start "${command}": ${error.message}`;
}
