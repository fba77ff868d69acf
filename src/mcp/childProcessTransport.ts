// The SDK Transport contract over a stdio child we spawn and own ourselves: the SDK's own stdio transport hides the
// exit code, spawns a second probe process in auto mode, and cannot kill a process group.

import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { SdkError, SdkErrorCode, type JSONRPCMessage, type Transport, type TransportSendOptions } from '@modelcontextprotocol/client';
import { ConnectError } from '../core/connection';
import type { Logger } from '../core/logger';
import type { ProcessEnd } from '../core/model';
import { JsonLineDecoder } from './jsonLineDecoder';
import { terminateGroup, trackGroup } from './processGroup';
import { StderrTail } from './stderrTail';
import { describeExit, drained, spawnServer, stopServer, type StdioLaunch } from './serverProcess';

export type { StdioLaunch };

export interface ChildProcessTransportOptions {
  readonly label: string;
  readonly logger: Logger;
  readonly stderrBufferBytes: number;
  readonly maxLineBytes: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** Time a server gets to exit by itself once its stdin is closed, before any signal. */
  readonly stdinCloseGraceMs: number;
}

/** Why the child is gone, captured the moment it happened. */
export interface ChildEnd extends ProcessEnd {
  readonly kind: 'exited' | 'protocol-violation';
}

/** How long an exit report waits for the last stderr bytes still in the pipe. */
const STDERR_DRAIN_MS = 50;

export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private child: ChildProcess | null = null;
  private readonly tail: StderrTail;
  private readonly stderrListeners: Array<(text: string) => void> = [];
  private readonly decoder: JsonLineDecoder;
  private exitedResolve!: () => void;
  private readonly exited = new Promise<void>((resolve) => (this.exitedResolve = resolve));
  private hasExited = false;
  private violation: string | null = null;
  private closeRequested = false;
  private closeDone: Promise<void> | null = null;
  private closeFired = false;
  private pendingDiscoverId: string | number | null = null;
  private endInfo: ChildEnd | null = null;

  constructor(
    private readonly launch: StdioLaunch,
    private readonly options: ChildProcessTransportOptions,
  ) {
    this.tail = new StderrTail(options.stderrBufferBytes);
    this.decoder = new JsonLineDecoder(
      {
        message: (message) => this.receive(message as JSONRPCMessage),
        garbage: (line) => options.logger.debug(`${options.label}: dropped a non-JSON stdout line: ${line}`),
        overflow: (bytes) => this.abandon(`stdout carried ${bytes} bytes without a newline (limit ${options.maxLineBytes})`),
      },
      options.maxLineBytes,
    );
  }

  /** Its presence (with pid) tells the SDK's era probe this is a stdio-shaped transport probed in place. */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Set once the child is gone without close() having asked for it. */
  get end(): ChildEnd | null {
    return this.endInfo;
  }

  get garbageLines(): number {
    return this.decoder.garbageLines;
  }

  get stderrTail(): string {
    return this.tail.toString();
  }

  /** True when the child died with a `server/discover` probe still unanswered: the sign of a server that quits on it. */
  get diedOnDiscover(): boolean {
    return this.hasExited && this.pendingDiscoverId !== null;
  }

  onStderr(listener: (text: string) => void): void {
    this.stderrListeners.push(listener);
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('ChildProcessTransport already started'));
    const { command, env } = this.launch;
    const child = spawnServer(this.launch);
    this.child = child;
    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        if (child.pid !== undefined) trackGroup(child.pid);
        this.wire(child);
        resolve();
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (child.pid === undefined) reject(spawnFailure(command, error, env?.PATH ?? env?.Path));
        else this.options.logger.debug(`${this.options.label}: child process error: ${error.message}`);
      });
    });
  }

  private wire(child: ChildProcess): void {
    child.stdout?.on('data', (chunk: Buffer) => this.decoder.push(chunk));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      this.tail.append(text);
      for (const listener of this.stderrListeners) listener(text);
    });
    // A write racing the child's death fails with EPIPE; the exit itself is what gets reported.
    child.stdin?.on('error', (error) => this.options.logger.debug(`${this.options.label}: stdin: ${error.message}`));
    child.once('exit', (code, signal) => this.handleExit(child, code, signal));
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || this.hasExited) throw new SdkError(SdkErrorCode.ConnectionClosed, 'The server process is not running');
    if ('method' in message && 'id' in message && message.method === 'server/discover') this.pendingDiscoverId = message.id;
    if (!stdin.write(`${JSON.stringify(message)}\n`)) {
      await new Promise<void>((resolve) => {
        stdin.once('drain', resolve);
        void this.exited.then(resolve);
      });
    }
  }

  close(): Promise<void> {
    this.closeRequested = true;
    this.closeDone ??= this.shutdown();
    return this.closeDone;
  }

  private receive(message: JSONRPCMessage): void {
    if (this.pendingDiscoverId !== null && 'id' in message && !('method' in message) && message.id === this.pendingDiscoverId) {
      this.pendingDiscoverId = null;
    }
    this.onmessage?.(message);
  }

  /** The stream can no longer be framed: kill the child and report a protocol violation rather than an exit. */
  private abandon(reason: string): void {
    if (this.violation !== null) return;
    this.violation = reason;
    this.options.logger.warn(`${this.options.label}: ${reason}; stopping the server`);
    const child = this.child;
    if (child && !this.hasExited) void terminateGroup(child, this.exited, this.options.killGraceMs);
  }

  private handleExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    this.hasExited = true;
    this.exitedResolve();
    if (this.closeRequested) return;
    // Helpers the server started may outlive it in its group: they go too.
    void terminateGroup(child, this.exited, this.options.killGraceMs);
    void this.reportExit(child, code, signal);
  }

  private async reportExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    await drained(child.stderr, STDERR_DRAIN_MS);
    if (this.closeRequested) return;
    this.endInfo = {
      kind: this.violation !== null ? 'protocol-violation' : 'exited',
      message: this.violation ?? describeExit(code, signal),
      exitCode: code,
      signal,
      stderrTail: this.tail.toString(),
    };
    this.fireClose();
  }

  private async shutdown(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined) {
      await stopServer(child, this.exited, !this.hasExited, this.options);
    }
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closeFired) return;
    this.closeFired = true;
    this.onclose?.();
  }
}

function spawnFailure(command: string, error: NodeJS.ErrnoException, searchPath: string | undefined): ConnectError {
  const reason =
    error.code === 'ENOENT'
      ? 'command not found (ENOENT); check the command name and PATH'
      : error.code === 'EACCES'
        ? 'permission denied (EACCES); is the file executable?'
        : error.message;
  return new ConnectError('unreachable', `Cannot start "${command}": ${reason}`, {
    ...(error.code ? { code: error.code } : {}),
    ...(error.code === 'ENOENT' && searchPath !== undefined ? { searchPath } : {}),
  });
}
