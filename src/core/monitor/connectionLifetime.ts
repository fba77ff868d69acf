// The life of one server's connection: at most one open at a time, one connect attempt at a time, the previous child
// gone before the next starts, and a generation number so that late callbacks of a dropped connection are ignored.
// It owns the guards around connect and probe (their own timeouts should fire first; these catch a broken promise).

import { ConnectError, type Connection, type Connector } from '../connection';
import type { Era, ProbeMethod, ProbeResult } from '../model';
import type { ConnectSlots } from './connectSlots';
import { withTimeLimit, type TimeLimited } from './timeLimit';
import { answered, defaultProbeMethod } from './probePolicy';
import { say, type ServerScope } from './serverScope';

const PROBE_LIMIT_GRACE_MS = 1_000;
const CONNECT_LIMIT_GRACE_MS = 1_000;
/** close() kills with SIGKILL after its own grace period; a close that still hangs must not block reconnects forever. */
const CLOSE_WAIT_LIMIT_MS = 10_000;

export interface LifetimeContext extends ServerScope {
  readonly connector: Connector;
  /** Shared by every server of a registry, so a burst of connects is spread out instead of timing out together. */
  readonly connectSlots: ConnectSlots;
  /** Bounds how many first starts run at once (they spawn, and often download, and compete for the CPU). */
  readonly startSlots: ConnectSlots;
}

/** A stdio server's first start: a budget of its own, a start slot, and its stderr while it starts. */
export interface StartPlan {
  readonly budgetMs: number;
  /** The start slot was granted: the start (and its budget) begins now. */
  running(): void;
  /** stderr while it starts (npm's download progress), before any connection exists to report it. */
  stderr(text: string): void;
}

/** How a connect attempt ended, unless it was abandoned meanwhile (then null). */
export type Opened = { readonly connection: Connection; readonly handshakeMs: number } | { readonly error: unknown };

export class ConnectionLifetime {
  private current: Connection | null = null;
  /** Bumped whenever a connection is started or torn down, so late callbacks of an old one are ignored. */
  private gen = 0;
  private readonly connectRun = new Joined<void>();
  private pendingConnect: TimeLimited<Connection> | null = null;
  private connectAbort: AbortController | null = null;
  private closing: Promise<void> = Promise.resolve();
  private readonly probeInFlight = new Joined<ProbeResult>();
  private pendingProbe: TimeLimited<ProbeResult> | null = null;
  private probesSent = 0;

  constructor(private readonly context: LifetimeContext) {}

  get connection(): Connection | null {
    return this.current;
  }

  get generation(): number {
    return this.gen;
  }

  get connecting(): boolean {
    return this.connectRun.busy;
  }

  isCurrent(generation: number): boolean {
    return generation === this.gen;
  }

  /** Probes sent on the current connection so far. */
  get probesOnConnection(): number {
    return this.probesSent;
  }

  /** One connect at a time: asking again while one runs joins it. */
  connectOnce(run: () => Promise<void>): Promise<void> {
    return this.connectRun.run(run);
  }

  /**
   * One connect attempt: once the previous connection closed (never two children of one server at once), within a
   * connect slot, under a guard. `wanted` is asked after every wait; `starting` is told when the attempt begins.
   * Null when it was abandoned (torn down, or no longer wanted) before it ended.
   */
  async attempt(
    eraHint: () => Era | null,
    wanted: () => boolean,
    starting: () => void,
    start: StartPlan | null = null,
  ): Promise<(Opened & { readonly generation: number }) | null> {
    await this.waitForClose();
    if (!wanted() || this.current) {
      return null;
    }
    const generation = ++this.gen;
    starting();
    // The budget starts when a slot is granted: waiting behind other servers is not this server's fault. A first
    // start takes a start slot first (never the other way round, so the two kinds of slot cannot deadlock).
    const releaseStart = start ? await this.context.startSlots.acquire() : null;
    try {
      if (!this.isCurrent(generation) || !wanted() || this.current) {
        return null;
      }
      const release = await this.context.connectSlots.acquire();
      try {
        if (!this.isCurrent(generation) || !wanted() || this.current) {
          return null;
        }
        start?.running();
        const opened = await this.open(eraHint(), generation, start);
        return opened && { ...opened, generation };
      } finally {
        release();
      }
    } finally {
      releaseStart?.();
    }
  }

  private async open(eraHint: Era | null, generation: number, start: StartPlan | null): Promise<Opened | null> {
    const timeoutMs = start ? start.budgetMs : this.context.settings().connectTimeoutMs;
    const abort = new AbortController();
    this.connectAbort = abort;
    const startedAt = this.context.clock.monotonic();
    // stderr of the starting child, only while this attempt runs and is the current one.
    let listening = true;
    const stderr = start
      ? (text: string) => {
          if (listening && this.isCurrent(generation)) start.stderr(text);
        }
      : undefined;
    const work = this.context.connector.connect(this.context.config(), {
      timeoutMs,
      eraHint,
      signal: abort.signal,
      ...(stderr ? { onStderr: stderr } : {}),
    });
    const limited = withTimeLimit(
      this.context.clock,
      work,
      timeoutMs + CONNECT_LIMIT_GRACE_MS,
      () => {
        abort.abort();
        return { error: new ConnectError('timeout', `no connection within ${timeoutMs} ms`) };
      },
      (late) => void this.closeQuietly(late),
    );
    this.pendingConnect = limited;
    let connection: Connection;
    try {
      connection = await limited.promise;
      listening = false;
    } catch (error) {
      listening = false;
      if (!this.isCurrent(generation)) return null;
      this.pendingConnect = null;
      this.connectAbort = null;
      return { error: start ? asStartFailure(error, timeoutMs) : error };
    }
    if (!this.isCurrent(generation)) {
      void this.closeQuietly(connection);
      return null;
    }
    this.pendingConnect = null;
    this.connectAbort = null;
    return { connection, handshakeMs: this.context.clock.monotonic() - startedAt };
  }

  adopt(connection: Connection): void {
    this.current = connection;
    this.probesSent = 0;
  }

  /** One probe cycle at a time: asking again while one runs joins it. */
  probeOnce(cycle: () => Promise<ProbeResult>): Promise<ProbeResult> {
    return this.probeInFlight.run(cycle);
  }

  /** A keepalive probe on this connection (the fallback asked after an ignored ping is not counted). */
  countProbe(): void {
    this.probesSent += 1;
  }

  /** One probe on `connection`, never throwing, its detail redacted and its round trip measured when it answered. */
  sendProbe(connection: Connection, timeoutMs: number, method: ProbeMethod | undefined): Promise<ProbeResult> {
    const clock = this.context.clock;
    const expected = method ?? defaultProbeMethod(connection.era);
    const startedAt = clock.monotonic();
    const work = connection
      .probe(timeoutMs, method)
      .catch((error: unknown): ProbeResult => ({ method: expected, outcome: 'failed', detail: String(error) }));
    const limited = withTimeLimit<ProbeResult>(clock, work, timeoutMs + PROBE_LIMIT_GRACE_MS, () => ({
      value: { method: expected, outcome: 'timeout', detail: `no answer within ${timeoutMs} ms` },
    }));
    this.pendingProbe = limited;
    return limited.promise.then((result) => {
      if (this.pendingProbe === limited) {
        this.pendingProbe = null;
      }
      const gotAnswer = answered(result.outcome) || result.outcome === 'auth';
      // A probe's detail quotes what the server said, and servers echo what they were given (headers, env, argv).
      const clean = result.detail !== undefined ? { ...result, detail: this.context.redact(result.detail) } : result;
      return clean.rttMs === undefined && gotAnswer ? { ...clean, rttMs: clock.monotonic() - startedAt } : clean;
    });
  }

  /** Drops the current connection (or attempt) and what waits on it; the close runs on, waitForClose() awaits it. */
  teardown(): void {
    this.gen += 1;
    this.connectAbort?.abort();
    this.connectAbort = null;
    this.pendingConnect?.cancel({ error: new ConnectError('unreachable', 'connect abandoned') });
    this.pendingConnect = null;
    this.connectRun.forget();
    this.pendingProbe?.cancel({ value: { method: 'ping', outcome: 'closed', detail: 'connection closed' } });
    this.pendingProbe = null;
    this.probeInFlight.forget();
    const connection = this.current;
    this.current = null;
    if (connection) {
      const previous = this.closing;
      const closed = this.closeQuietly(connection);
      this.closing = Promise.all([previous, closed]).then(() => undefined);
    }
  }

  /** Never two children of one server at once: resolves once every dropped connection closed (or the limit passed). */
  waitForClose(): Promise<void> {
    return withTimeLimit(this.context.clock, this.closing, CLOSE_WAIT_LIMIT_MS, () => {
      say(this.context, 'warn', `the previous connection did not close within ${CLOSE_WAIT_LIMIT_MS} ms`);
      return { value: undefined };
    }).promise;
  }

  /** What dispose() awaits without the limit, as before the split: the closes themselves. */
  get closed(): Promise<void> {
    return this.closing;
  }

  private closeQuietly(connection: Connection): Promise<void> {
    return connection.close().catch((error: unknown) => say(this.context, 'warn', `close failed: ${String(error)}`));
  }
}

/** A start that ran out of its budget says so: "did not start within 120 s", with what the connector knew. */
function asStartFailure(error: unknown, budgetMs: number): unknown {
  if (!(error instanceof ConnectError) || error.kind !== 'timeout') return error;
  return new ConnectError('timeout', `did not start within ${Math.round(budgetMs / 100) / 10} s`, error.details);
}

/** One run at a time: asking while one runs joins it; forget() lets the next request start afresh (after a teardown). */
class Joined<T> {
  private running: Promise<T> | null = null;

  get busy(): boolean {
    return this.running !== null;
  }

  run(start: () => Promise<T>): Promise<T> {
    if (this.running) {
      return this.running;
    }
    const running: Promise<T> = start().finally(() => {
      if (this.running === running) {
        this.running = null;
      }
    });
    this.running = running;
    return running;
  }

  forget(): void {
    this.running = null;
  }
}
