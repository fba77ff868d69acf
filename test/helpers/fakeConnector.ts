// A scriptable Connector for monitor unit tests: each connect attempt follows a plan (fail, delay, era, how probes
// are answered), every call is recorded with its simulated time, and tests can make a connection die, talk, or
// write to stderr whenever they like. All delays run on the FakeClock.

import type { Clock } from '../../src/core/clock';
import type { ConnectError, Connection, ConnectOptions, Connector } from '../../src/core/connection';
import type { Era, ProbeMethod, ProbeOutcome, ProbeResult, ServerConfig, ServerError, ServerInfo } from '../../src/core/model';

export type ProbeReply =
  | { readonly outcome: Exclude<ProbeOutcome, 'timeout'>; readonly afterMs?: number; readonly detail?: string }
  /** No answer: the connection's own timeout reports it after timeoutMs. */
  | { readonly outcome: 'timeout' }
  /** A broken promise: never settles, so only the monitor's own guard can end it. */
  | { readonly outcome: 'hang' };

export type ProbeScript = (method: ProbeMethod, connection: FakeConnection) => ProbeReply;

export interface ConnectPlan {
  readonly fail?: ConnectError;
  /** Simulated duration of the connect. */
  readonly afterMs?: number;
  /** Never settles (ignores its timeout). */
  readonly hang?: boolean;
  readonly era?: Era;
  readonly pid?: number;
  readonly probe?: ProbeScript;
  /** The connection ends on its own this long after it opened (a crash loop), reported as an exit with code 1. */
  readonly dieAfterMs?: number;
  /** close() never settles (a child that cannot be killed). */
  readonly hangOnClose?: boolean;
  /** What the server says about itself in its initialize answer. */
  readonly serverInfo?: ServerInfo;
  /** stderr written while it starts, each chunk this long after the connect began (to options.onStderr). */
  readonly startStderr?: readonly { readonly afterMs: number; readonly text: string }[];
  /** How the connection ends when it dies on its own (dieAfterMs): default an exit with code 1. */
  readonly death?: ServerError;
}

export const DEFAULT_RTT_MS = 5;
export const answerOk: ProbeScript = () => ({ outcome: 'ok', afterMs: DEFAULT_RTT_MS });

export interface ProbeCall {
  readonly method: ProbeMethod;
  readonly requested: ProbeMethod | undefined;
  readonly timeoutMs: number;
  readonly at: number;
}

export class FakeConnection implements Connection {
  readonly probes: ProbeCall[] = [];
  serverInfo: ServerInfo | null = { name: 'fake', version: '1.0.0' };
  readonly protocolVersion: string | null;
  closeCalls = 0;
  hangOnClose = false;
  maxConcurrentProbes = 0;
  private probesInFlight = 0;
  private ended = false;
  private nextRequestId = 1;
  private readonly activityListeners: (() => void)[] = [];
  private readonly closeListeners: ((info: ServerError) => void)[] = [];
  private readonly stderrListeners: ((text: string) => void)[] = [];

  constructor(
    readonly serverId: string,
    readonly era: Era,
    readonly pid: number | null,
    private readonly clock: Clock,
    public probeScript: ProbeScript,
  ) {
    this.protocolVersion = era === 'modern' ? '2026-07-28' : '2025-11-25';
  }

  get isOpen(): boolean {
    return !this.ended && this.closeCalls === 0;
  }

  probe(timeoutMs: number, method?: ProbeMethod): Promise<ProbeResult> {
    const resolved = method ?? (this.era === 'modern' ? 'server/discover' : 'ping');
    const requestId = this.nextRequestId++;
    this.probes.push({ method: resolved, requested: method, timeoutMs, at: this.clock.monotonic() });
    const reply = this.probeScript(resolved, this);
    if (reply.outcome === 'hang') {
      return new Promise<ProbeResult>(() => undefined);
    }
    this.probesInFlight += 1;
    this.maxConcurrentProbes = Math.max(this.maxConcurrentProbes, this.probesInFlight);
    const startedAt = this.clock.monotonic();
    const delay = reply.outcome === 'timeout' ? timeoutMs : Math.min(reply.afterMs ?? DEFAULT_RTT_MS, timeoutMs);
    return new Promise<ProbeResult>((resolve) => {
      this.clock.setTimeout(() => {
        this.probesInFlight -= 1;
        if (reply.outcome === 'timeout') {
          resolve({ method: resolved, outcome: 'timeout', requestId });
          return;
        }
        const gotAnswer = reply.outcome !== 'closed' && reply.outcome !== 'failed';
        if (gotAnswer) {
          this.emitActivity();
        }
        resolve({
          method: resolved,
          outcome: reply.outcome,
          requestId,
          ...(gotAnswer ? { rttMs: this.clock.monotonic() - startedAt } : {}),
          ...(reply.detail !== undefined ? { detail: reply.detail } : {}),
        });
      }, delay);
    });
  }

  onActivity(listener: () => void): void {
    this.activityListeners.push(listener);
  }

  onClose(listener: (info: ServerError) => void): void {
    this.closeListeners.push(listener);
  }

  onStderr(listener: (text: string) => void): void {
    this.stderrListeners.push(listener);
  }

  close(): Promise<void> {
    this.closeCalls += 1;
    return this.hangOnClose ? new Promise<void>(() => undefined) : Promise.resolve();
  }

  /** Traffic from the server (a notification, a response to someone else's request). */
  emitActivity(): void {
    for (const listener of this.activityListeners) {
      listener();
    }
  }

  /** The connection ends on its own (child exit, stream lost); reported once, like a real one. */
  die(info: ServerError): void {
    if (this.ended) {
      return;
    }
    this.ended = true;
    for (const listener of this.closeListeners) {
      listener(info);
    }
  }

  writeStderr(text: string): void {
    for (const listener of this.stderrListeners) {
      listener(text);
    }
  }
}

export interface ConnectAttempt {
  readonly serverId: string;
  readonly options: ConnectOptions;
  readonly at: number;
}

export class FakeConnector implements Connector {
  readonly attempts: ConnectAttempt[] = [];
  readonly connections: FakeConnection[] = [];
  private readonly queued = new Map<string, ConnectPlan[]>();
  private readonly standing = new Map<string, ConnectPlan>();
  private nextPid = 1000;
  disposeCalls = 0;

  constructor(private readonly clock: Clock) {}

  dispose(): void {
    this.disposeCalls++;
  }

  /** Plans for the next attempts of one server, used in order before its standing plan. */
  queue(serverId: string, ...plans: ConnectPlan[]): this {
    this.queued.set(serverId, [...(this.queued.get(serverId) ?? []), ...plans]);
    return this;
  }

  /** The plan for every attempt of one server once its queue is empty. */
  always(serverId: string, plan: ConnectPlan): this {
    this.standing.set(serverId, plan);
    return this;
  }

  attemptsFor(serverId: string): ConnectAttempt[] {
    return this.attempts.filter((attempt) => attempt.serverId === serverId);
  }

  connectionsFor(serverId: string): FakeConnection[] {
    return this.connections.filter((connection) => connection.serverId === serverId);
  }

  latest(serverId: string): FakeConnection {
    const all = this.connectionsFor(serverId);
    const last = all[all.length - 1];
    if (!last) {
      throw new Error(`no connection for ${serverId}`);
    }
    return last;
  }

  openConnections(): FakeConnection[] {
    return this.connections.filter((connection) => connection.isOpen);
  }

  connect(server: ServerConfig, options: ConnectOptions): Promise<Connection> {
    this.attempts.push({ serverId: server.id, options, at: this.clock.monotonic() });
    const queue = this.queued.get(server.id) ?? [];
    const plan = queue.shift() ?? this.standing.get(server.id) ?? {};
    for (const chunk of plan.startStderr ?? []) {
      this.clock.setTimeout(() => options.onStderr?.(chunk.text), chunk.afterMs);
    }
    if (plan.hang) {
      return new Promise<Connection>(() => undefined);
    }
    const settle = (): Connection => {
      if (plan.fail) {
        throw plan.fail;
      }
      const connection = new FakeConnection(
        server.id,
        plan.era ?? options.eraHint ?? 'handshake',
        plan.pid ?? this.nextPid++,
        this.clock,
        plan.probe ?? answerOk,
      );
      connection.hangOnClose = plan.hangOnClose ?? false;
      if (plan.serverInfo) connection.serverInfo = plan.serverInfo;
      this.connections.push(connection);
      if (plan.dieAfterMs !== undefined) {
        this.clock.setTimeout(
          () => connection.die(plan.death ?? { kind: 'exited', message: 'process exited with code 1', exitCode: 1, signal: null }),
          plan.dieAfterMs,
        );
      }
      return connection;
    };
    if (!plan.afterMs) {
      return Promise.resolve().then(settle);
    }
    return new Promise<Connection>((resolve, reject) => {
      this.clock.setTimeout(() => {
        try {
          resolve(settle());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }, plan.afterMs ?? 0);
    });
  }
}
