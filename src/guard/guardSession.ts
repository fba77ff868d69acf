// The guard between one client and a succession of upstream generations. Lines pass through untouched; the guard
// only reads enough of each to route it, keeps the upstream alive with its own probes, and when an upstream dies
// starts the next one, replays the client's handshake on it and answers what the dead one left unanswered.

import type { Clock, TimerHandle } from '../core/clock';
import type { Logger } from '../core/logger';
import type { ProbeOutcome, ProcessEnd } from '../core/model';
import { backoffDelay, type BackoffSettings } from '../core/monitor/backoff';
import { CrashLoop, crashLoopSettings, defaultCrashLoopSettings, gaveUpReason, type CrashLoopSettings } from '../core/monitor/crashLoop';
import { stderrFinding } from '../core/stderrCause';
import { sleptText, suspendAwareClock, type Suspension } from '../core/monitor/suspend';
import { defaultMonitorSettings } from '../core/monitorTypes';
import { classifyReply } from '../core/probeReply';
import { Keepalive, type KeepaliveMethod, type KeepaliveStats } from './keepalive';
import {
  classify,
  classifyLine,
  clientIdOf,
  errorResponse,
  GUARD_ID_PREFIX,
  hasGuardPrefix,
  isRecord,
  line,
  MODERN_VERSION_META,
  upstreamId,
  type JsonRpcId,
} from './messages';
import { InFlightBook } from './inFlightBook';
import { routeLine, withTopId, type Message, type Route } from './routeLine';
import type { Upstream, UpstreamEnd, UpstreamFactory } from './upstream';

export type GuardEra = 'unknown' | 'handshake' | 'modern';
/** `gave-up`: the upstream crashed too often (the monitor's crash-loop rule); requests are answered with that error. */
export type GuardState = 'starting' | 'ready' | 'restarting' | 'gave-up' | 'closed';

export interface GuardSettings {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Bound on a restarted upstream's start-up plus the replayed handshake. */
  readonly handshakeTimeoutMs: number;
  readonly backoff: BackoffSettings;
  /** A generation that lived this long resets the backoff: its death is a fresh incident, not part of a crash loop. */
  readonly healthyResetMs: number;
  /** Stop restarting after this many deaths in the window, as the monitor does (absent: 5 in 3 minutes). */
  readonly crashLoop?: CrashLoopSettings;
}

/** The keepalive timing of the monitor's stdio servers: a guard is one, seen from the client's side. */
export const defaultGuardSettings: GuardSettings = {
  intervalMs: defaultMonitorSettings.intervalMs.stdio,
  timeoutMs: defaultMonitorSettings.timeoutMs,
  handshakeTimeoutMs: 30_000,
  backoff: { initialMs: 500, maxMs: 30_000 },
  healthyResetMs: 60_000,
  crashLoop: defaultCrashLoopSettings,
};

/** The client's end: the guard's own stdin/stdout in the CLI. */
export interface ClientPort {
  /** One line to the client; false means wait for drained(). */
  write(raw: Buffer): boolean;
  pause(): void;
  resume(): void;
  /** Closes the connection to the client: the client sees its server go away. */
  end(): void;
}

export interface GuardDeps {
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: Logger;
  readonly upstreams: UpstreamFactory;
  readonly client: ClientPort;
  /** Called once when the guard has shut down, with the exit code the process should end with. */
  readonly onClosed: (code: number) => void;
}

/** The JSON-RPC code of the error that in-flight requests get when their upstream dies. */
export const UPSTREAM_FAILED_CODE = -32000;

export interface MethodStats {
  count: number;
  errors: number;
  totalMs: number;
  maxMs: number;
}

export interface GuardStatus {
  readonly state: GuardState;
  readonly era: GuardEra;
  readonly protocolVersion: string | null;
  readonly upstreamPid: number | null;
  readonly generation: number;
  readonly restarts: number;
  readonly keepalive: KeepaliveStats;
  readonly methods: Readonly<Record<string, MethodStats>>;
  readonly lastError: (ProcessEnd & { readonly atMs: number }) | null;
}

type Outcome = { result?: unknown; error?: { code?: unknown; message?: unknown } };

/** What a probe asked for from outside (MCP Health's Ping) found; the outcome names follow the monitor's. */
export interface ManualProbe {
  readonly method: KeepaliveMethod;
  readonly outcome: Exclude<ProbeOutcome, 'auth'>;
  readonly rttMs?: number;
  readonly detail?: string;
}
type InternalAnswer = Outcome | 'timeout' | 'aborted';

const CAPABILITIES_WITH_LISTS = ['tools', 'prompts', 'resources'] as const;
const MAX_GARBAGE_REPORTS = 5;

export class GuardSession {
  private state: GuardState = 'starting';
  private gen = 0;
  private upstream: Upstream | null = null;
  private readonly queue: Array<{ raw: Buffer; route: Route }> = [];
  // Keyed by the id itself: a Map tells 1 from "1" as JSON-RPC does, with no key string made per message.
  private readonly inFlight = new InFlightBook();
  private readonly serverRequests = new Set<JsonRpcId>();
  private readonly internal = new Map<string, { resolve: (answer: InternalAnswer) => void; timer: TimerHandle }>();
  private init: {
    id: JsonRpcId;
    params: unknown;
    result: { protocolVersion: string; capabilities: Record<string, unknown> } | null;
  } | null = null;
  private initializedLine: Buffer | null = null;
  private era: GuardEra = 'unknown';
  private modern: { version: string; meta: Record<string, unknown>; capabilities: Record<string, unknown> | null } | null = null;
  private attempt = 0;
  /** Upstreams started so far; `gen` also moves when one dies, to orphan its late lines. */
  private launched = 0;
  private restarts = 0;
  private generationStartedAt = 0;
  private restartTimer: TimerHandle | null = null;
  private upstreamBlocked = false;
  private clientBlocked = false;
  private clientPaused = false;
  private internalSeq = 0;
  private garbageReports = 0;
  /** The client closed its input: what it sent is still delivered and answered before the guard closes. */
  private clientEnded = false;
  private drainTimer: TimerHandle | null = null;
  private drainActivity = 0;
  private lastError: GuardStatus['lastError'] = null;
  private readonly methods: Record<string, MethodStats> = {};
  private readonly keepalive: Keepalive;
  private readonly crashes = new CrashLoop();
  /** Why the guard stopped restarting; what every request of the client is answered with meanwhile. */
  private gaveUp: string | null = null;
  /** The next death is the restart asked for from outside: not a crash. */
  private restartRequested = false;

  private readonly deps: GuardDeps;

  constructor(
    private readonly settings: GuardSettings,
    deps: GuardDeps,
  ) {
    // Every timer of the guard is judged as it fires: one far too late means the machine slept (core/monitor/suspend).
    this.deps = { ...deps, clock: suspendAwareClock(deps.clock, (suspension) => this.resumed(suspension)) };
    this.keepalive = new Keepalive(this.deps.clock, settings, {
      send: (id) => this.sendProbe(id),
      dead: (reason) => this.fail({ message: `upstream ${reason}`, exitCode: null, signal: null, stderrTail: '' }),
      violation: (reason) => deps.logger.warn(`upstream ${reason}`),
      answered: (method, rttMs) => deps.logger.debug(`keepalive ${method} answered in ${rttMs.toFixed(1)} ms`),
    });
  }

  status(): GuardStatus {
    return {
      state: this.state,
      era: this.era,
      protocolVersion: this.init?.result?.protocolVersion ?? this.modern?.version ?? null,
      upstreamPid: this.upstream?.pid ?? null,
      generation: this.launched,
      restarts: this.restarts,
      keepalive: this.keepalive.snapshot,
      methods: structuredClone(this.methods),
      lastError: this.lastError,
    };
  }

  /**
   * The machine slept: the upstream is probed at once (an HTTP session the server forgot fails that probe and the
   * upstream restarts as after any death; a stdio child that was stopped times out the same way), a restart waiting
   * for its back-off starts now, and the slept time does not count as time the upstream stayed up.
   */
  private resumed(suspension: Suspension): void {
    if (this.isClosed()) return;
    if (this.generationStartedAt < suspension.monotonicTo) {
      this.generationStartedAt += suspension.monotonicTo - Math.max(this.generationStartedAt, suspension.monotonicFrom);
    }
    this.deps.logger.info(`resumed after ${sleptText(suspension.sleptMs)} asleep: probing the upstream`);
    if (this.state === 'ready') {
      this.keepalive.probeNow();
    } else if (this.restartTimer && !this.gaveUp) {
      this.deps.clock.clearTimeout(this.restartTimer);
      this.restartTimer = null;
      void this.startGeneration();
    }
  }

  /**
   * A probe now, asked for from outside (MCP Health's Ping): the keepalive's method for the era, judged by the same
   * rules. It only reports: declaring the upstream dead stays with the keepalive, so a click cannot restart a server.
   */
  async probeNow(timeoutMs: number): Promise<ManualProbe> {
    const method: KeepaliveMethod = this.era === 'modern' ? 'server/discover' : 'ping';
    if (this.state !== 'ready' || !this.upstream) return { method, outcome: 'failed', detail: `the guard is ${this.state}` };
    if (this.era === 'unknown' || (this.era === 'modern' && !this.modern)) {
      // A ping would be a fault on a modern server, and a discover needs the client's envelope.
      return { method, outcome: 'failed', detail: 'the client has not spoken to the server yet, so its protocol era is unknown' };
    }
    const params = method === 'ping' ? undefined : { _meta: this.modern!.meta };
    const startedAt = this.deps.clock.monotonic();
    const answer = await this.internalRequest(this.gen, method, params, timeoutMs);
    const rttMs = this.deps.clock.monotonic() - startedAt;
    if (answer === 'timeout') return { method, outcome: 'timeout', detail: `no answer within ${timeoutMs} ms` };
    if (answer === 'aborted') return { method, outcome: 'closed', detail: 'the upstream went away while the probe was out' };
    return { method, rttMs, ...classifyReply(method, answer) };
  }

  /**
   * Reconnect, asked for from outside: the upstream is restarted the way a crash is recovered (handshake replayed,
   * list_changed sent), but only while none of the client's requests is in flight, so that the click fails none.
   */
  restartNow(): { readonly restarting: boolean; readonly detail: string } {
    if (this.state === 'gave-up') {
      // Restart after a give-up starts afresh: no crashes counted, the shortest back-off.
      this.crashes.reset();
      this.attempt = 0;
      this.gaveUp = null;
      this.state = 'restarting';
      this.updateClientFlow();
      void this.startGeneration();
      return { restarting: true, detail: 'starting the upstream afresh after giving up on its crash loop' };
    }
    if (this.state !== 'ready') return { restarting: false, detail: `the guard is ${this.state}` };
    const busy = this.inFlight.size + this.serverRequests.size + this.queue.length;
    if (busy > 0) return { restarting: false, detail: `${busy} message(s) of the client are in flight; a restart now would fail them` };
    this.restartRequested = true;
    this.fail({ message: 'restart requested from MCP Health', exitCode: null, signal: null, stderrTail: '' });
    return { restarting: true, detail: 'restarting the upstream; the client keeps its connection' };
  }

  /** Starts the first upstream; the client's lines queue until it is running. */
  start(): void {
    this.updateClientFlow();
    void this.startGeneration();
  }

  // ---- client -> upstream ----

  fromClient(raw: Buffer): void {
    if (this.state === 'closed') return;
    const route = routeLine(raw);
    if (this.gaveUp !== null) {
      // Nothing would ever answer: say why at once rather than leave the client waiting on a server given up on.
      if (route.kind === 'request') this.writeClient(errorResponse(route.id, UPSTREAM_FAILED_CODE, this.gaveUp));
      return;
    }
    if (this.state !== 'ready' || this.queue.length > 0) {
      // A line in a chunk shares that chunk's memory: a queued one gets its own copy.
      this.queue.push({ raw: Buffer.from(raw), route });
      this.updateClientFlow();
      return;
    }
    this.forwardFromClient(raw, route);
  }

  /**
   * The client closed its input (stdin EOF), as `printf ... | mcp-health guard -- server` does at once. A direct server
   * still reads what was sent and answers it, so the guard delivers what it holds and waits for the answers to requests
   * in flight, as long as the upstream keeps talking (at most the timeout of silence), then closes.
   */
  clientClosed(): void {
    if (this.state === 'closed' || this.clientEnded) return;
    this.clientEnded = true;
    if (this.drained()) {
      void this.close(0);
      return;
    }
    this.deps.logger.debug(
      `the client closed its input; delivering ${this.queue.length} queued line(s) and waiting for ${this.inFlight.size} answer(s) first`,
    );
    this.drainActivity = this.deps.clock.monotonic();
    this.drainTimer = this.deps.clock.setTimeout(() => this.onDrainTimer(), this.settings.timeoutMs);
  }

  private drained(): boolean {
    return this.queue.length === 0 && this.inFlight.size === 0;
  }

  /** After the client's EOF: closes once nothing the client sent is left unanswered. */
  private closeIfDrained(): void {
    if (this.clientEnded && this.state !== 'closed' && this.drained()) void this.close(0);
  }

  private onDrainTimer(): void {
    this.drainTimer = null;
    if (this.state === 'closed') return;
    const silentFor = this.deps.clock.monotonic() - this.drainActivity;
    if (silentFor < this.settings.timeoutMs) {
      this.drainTimer = this.deps.clock.setTimeout(() => this.onDrainTimer(), this.settings.timeoutMs - silentFor);
      return;
    }
    const reason = `the client closed its input and the upstream sent nothing for ${this.settings.timeoutMs} ms`;
    this.deps.logger.warn(`${reason}; closing with ${this.inFlight.size + this.queue.length} message(s) unanswered`);
    this.answerAllWithError(reason);
    void this.close(0);
  }

  /** Every request of the client the guard holds or has in flight gets this error (the guard is about to close). */
  private answerAllWithError(reason: string): void {
    for (const id of this.inFlight.keys()) this.writeClient(errorResponse(id, UPSTREAM_FAILED_CODE, reason));
    this.inFlight.clear();
    for (const queued of this.queue.splice(0)) {
      for (const id of requestIds(queued.route)) this.writeClient(errorResponse(id, UPSTREAM_FAILED_CODE, reason));
    }
  }

  /** The client can take more after write() returned false. */
  clientDrained(): void {
    this.clientBlocked = false;
    this.upstream?.resumeReading();
  }

  private forwardFromClient(raw: Buffer, route: Route): void {
    switch (route.kind) {
      case 'batch':
        this.forwardClientBatch(raw, route.items);
        return;
      case 'request': {
        const initialize = route.method === 'initialize' && this.era !== 'modern';
        // Only these need the params: the handshake to replay, and the modern envelope's _meta until the era is known
        // (in the handshake era it is never read; in the modern era only server/discover's keeps the capabilities).
        const params =
          initialize || this.era === 'unknown' || (this.era === 'modern' && route.method === 'server/discover') ? paramsOf(raw) : undefined;
        if (initialize) {
          this.init = { id: route.id, params: params ?? {}, result: null };
          this.era = 'handshake';
        }
        const meta = isRecord(params?._meta) ? params._meta : null;
        const version = meta && typeof meta[MODERN_VERSION_META] === 'string' ? meta[MODERN_VERSION_META] : null;
        this.inFlight.set(route.id, {
          method: route.method,
          startedAt: this.deps.clock.monotonic(),
          modern: version && meta ? { version, meta } : null,
        });
        if (hasGuardPrefix(route.id)) raw = withTopId(raw, upstreamId(route.id));
        break;
      }
      case 'notification':
        if (route.method === 'notifications/initialized' && !this.initializedLine) this.initializedLine = Buffer.from(raw);
        if (route.method === 'notifications/cancelled') {
          const params = paramsOf(raw);
          // A cancelled request may never be answered: it must not wait in the books forever.
          forgetCancelled(this.inFlight, params);
          const cancelled = params?.requestId;
          if (isId(cancelled) && hasGuardPrefix(cancelled)) raw = line(cancelling(JSON.parse(raw.toString('utf8')), upstreamId));
        }
        break;
      case 'response':
        // An answer to a server-to-client request of a dead generation: its asker is gone.
        if (route.id === null || !this.serverRequests.delete(route.id)) {
          this.deps.logger.debug(`dropped the client's answer to request ${JSON.stringify(route.id)} of a previous upstream`);
          return;
        }
        break;
      case 'other':
        break;
    }
    this.writeUpstream(raw);
  }

  /**
   * A batch from the client: each message is booked as if it came alone. Batches are rare (protocol 2025-03-26 and
   * older), so this parses the line; it is forwarded as it came unless a message in it must change (a client id that
   * needs its mark, an answer to a request of a dead upstream), and then re-serialised.
   */
  private forwardClientBatch(raw: Buffer, items: readonly Message[]): void {
    const elements = JSON.parse(raw.toString('utf8')) as unknown[];
    const kept: unknown[] = [];
    let changed = false;
    const now = this.deps.clock.monotonic();
    items.forEach((item, index) => {
      let element = elements[index];
      if (item.kind === 'request') {
        this.inFlight.set(item.id, { method: item.method, startedAt: now, modern: null });
        if (hasGuardPrefix(item.id)) {
          element = { ...(element as Record<string, unknown>), id: upstreamId(item.id) };
          changed = true;
        }
      } else if (item.kind === 'notification') {
        if (item.method === 'notifications/initialized' && !this.initializedLine) this.initializedLine = line(element);
        if (item.method === 'notifications/cancelled') {
          const params = (element as { params?: unknown }).params;
          forgetCancelled(this.inFlight, isRecord(params) ? params : undefined);
          if (isRecord(params) && hasGuardPrefix(isId(params.requestId) ? params.requestId : null)) {
            element = cancelling(element, upstreamId);
            changed = true;
          }
        }
      } else if (item.kind === 'response' && (item.id === null || !this.serverRequests.delete(item.id))) {
        this.deps.logger.debug(`dropped the client's answer to request ${JSON.stringify(item.id)} of a previous upstream`);
        changed = true;
        return;
      }
      kept.push(element);
    });
    if (!changed) this.writeUpstream(raw);
    else if (kept.length > 0) this.writeUpstream(line(kept));
  }

  private writeUpstream(raw: Buffer): void {
    if (this.upstream && !this.upstream.write(raw)) {
      this.upstreamBlocked = true;
      this.updateClientFlow();
    }
  }

  private updateClientFlow(): void {
    // Given up: the client is read, so that each request gets its error.
    const pause = this.state !== 'ready' && this.state !== 'gave-up' ? true : this.upstreamBlocked || this.queue.length > 0;
    if (pause === this.clientPaused) return;
    this.clientPaused = pause;
    if (pause) this.deps.client.pause();
    else this.deps.client.resume();
  }

  // ---- upstream -> client ----

  private fromUpstream(gen: number, raw: Buffer): void {
    if (gen !== this.gen || this.state === 'closed') return;
    // One reading of the clock per line, for the keepalive and for the answer's time: a flood reads it 10,000 times.
    const now = this.deps.clock.monotonic();
    this.keepalive.activity(now);
    if (this.clientEnded) this.drainActivity = now;
    const route = routeLine(raw);
    switch (route.kind) {
      case 'other':
        // Only protocol lines reach the client; a stray line from the server is a diagnostic.
        if (this.garbageReports++ < MAX_GARBAGE_REPORTS) {
          this.deps.logger.warn(
            `dropped a stdout line of the upstream that is not a JSON-RPC message: ${raw.toString('utf8', 0, Math.min(raw.length, 200)).trim()}`,
          );
        }
        return;
      case 'response':
        if (hasGuardPrefix(route.id)) {
          const clientId = clientIdOf(route.id);
          if (clientId === null) {
            this.answerOwn(route.id, outcomeOf(raw));
            return;
          }
          // The answer to a client id that travelled with the mark: the client gets its own id back.
          this.settleInFlight(clientId, route.failed, raw, undefined, now);
          raw = withTopId(raw, clientId);
          break;
        }
        if (route.id !== null) this.settleInFlight(route.id, route.failed, raw, undefined, now);
        break;
      case 'batch':
        this.fromUpstreamBatch(raw, route.items, now);
        return;
      case 'request':
        this.serverRequests.add(route.id);
        break;
      case 'notification':
        if (route.method === 'notifications/cancelled') forgetCancelled(this.serverRequests, paramsOf(raw));
        break;
    }
    this.writeClient(raw);
    if (this.clientEnded) this.closeIfDrained();
  }

  /** A batch from the upstream: each message is handled as if it came alone; the guard's own answers stay here. */
  private fromUpstreamBatch(raw: Buffer, items: readonly Message[], now: number): void {
    const elements = JSON.parse(raw.toString('utf8')) as unknown[];
    const kept: unknown[] = [];
    let changed = false;
    items.forEach((item, index) => {
      let element = elements[index];
      if (item.kind === 'response') {
        if (hasGuardPrefix(item.id)) {
          const clientId = clientIdOf(item.id);
          changed = true;
          if (clientId === null) {
            this.answerOwn(item.id, outcomeOfMessage(element));
            return;
          }
          element = { ...(element as Record<string, unknown>), id: clientId };
          this.settleInFlight(clientId, item.failed, null, element, now);
        } else if (item.id !== null) {
          this.settleInFlight(item.id, item.failed, null, element, now);
        }
      } else if (item.kind === 'request') {
        this.serverRequests.add(item.id);
      } else if (item.kind === 'notification' && item.method === 'notifications/cancelled') {
        const params = (element as { params?: unknown }).params;
        forgetCancelled(this.serverRequests, isRecord(params) ? params : undefined);
      }
      kept.push(element);
    });
    if (!changed) this.writeClient(raw);
    else if (kept.length > 0) this.writeClient(line(kept));
    if (this.clientEnded) this.closeIfDrained();
  }

  private answerOwn(id: string, outcome: Outcome): void {
    if (!this.keepalive.answer(id, outcome)) this.answerInternal(id, outcome);
  }

  /** `raw` is the answer's line, or null when it came in a batch as `element`; `now` is when it arrived. */
  private settleInFlight(id: JsonRpcId, failed: boolean, raw: Buffer | null, element: unknown, now: number): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    this.inFlight.delete(id);
    this.record(entry.method, now - entry.startedAt, failed);
    if (failed) return;
    // The result is read (parsed) only for the answers the guard keeps something of.
    const outcome = entry.method === 'initialize' || entry.modern ? (raw ? outcomeOf(raw) : outcomeOfMessage(element)) : null;
    if (!outcome) return;
    if (entry.method === 'initialize' && this.init && isRecord(outcome.result)) {
      const { protocolVersion, capabilities } = outcome.result;
      this.init.result = {
        protocolVersion: typeof protocolVersion === 'string' ? protocolVersion : '',
        capabilities: isRecord(capabilities) ? capabilities : {},
      };
    } else if (entry.modern && this.era !== 'handshake') {
      // A request in the modern envelope that the upstream accepted: the client speaks 2026-07-28 to this server.
      this.era = 'modern';
      this.modern ??= { version: entry.modern.version, meta: entry.modern.meta, capabilities: null };
      if (entry.method === 'server/discover' && isRecord(outcome.result) && isRecord(outcome.result.capabilities)) {
        this.modern.capabilities = outcome.result.capabilities;
      }
    }
  }

  private record(method: string, ms: number, failed: boolean): void {
    const stats = (this.methods[method] ??= { count: 0, errors: 0, totalMs: 0, maxMs: 0 });
    stats.count++;
    if (failed) stats.errors++;
    stats.totalMs += ms;
    if (ms > stats.maxMs) stats.maxMs = ms;
  }

  private writeClient(raw: Buffer): void {
    if (this.state === 'closed') return;
    if (!this.deps.client.write(raw) && !this.clientBlocked) {
      this.clientBlocked = true;
      this.upstream?.pauseReading();
    }
  }

  // ---- keepalive and the guard's own requests ----

  private sendProbe(id: string): KeepaliveMethod | null {
    if (this.state !== 'ready' || !this.upstream) return null;
    if (this.era === 'handshake') {
      this.deps.logger.debug(`keepalive ping ${id} sent`);
      this.writeUpstream(line({ jsonrpc: '2.0', id, method: 'ping' }));
      return 'ping';
    }
    if (this.era === 'modern' && this.modern) {
      this.deps.logger.debug(`keepalive server/discover ${id} sent`);
      this.writeUpstream(line({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: this.modern.meta } }));
      return 'server/discover';
    }
    // Era unknown (the client has not spoken yet): a ping would be a fault on a modern server, so only the exit watch.
    return null;
  }

  private internalRequest(gen: number, method: string, params: unknown, timeoutMs: number): Promise<InternalAnswer> {
    const id = `${GUARD_ID_PREFIX}${method}-${gen}-${++this.internalSeq}`;
    return new Promise<InternalAnswer>((resolve) => {
      const timer = this.deps.clock.setTimeout(() => {
        this.internal.delete(id);
        resolve('timeout');
      }, timeoutMs);
      this.internal.set(id, { resolve, timer });
      this.writeUpstream(line({ jsonrpc: '2.0', id, method, params }));
    });
  }

  private answerInternal(id: string, outcome: Outcome): void {
    const pending = this.internal.get(id);
    if (!pending) return;
    this.internal.delete(id);
    this.deps.clock.clearTimeout(pending.timer);
    pending.resolve(outcome);
  }

  private abortInternal(): void {
    for (const pending of this.internal.values()) {
      this.deps.clock.clearTimeout(pending.timer);
      pending.resolve('aborted');
    }
    this.internal.clear();
  }

  // ---- generations ----

  private async startGeneration(): Promise<void> {
    this.restartTimer = null;
    if (this.state === 'closed') return;
    const gen = ++this.gen;
    const restart = this.launched > 0;
    this.launched++;
    const upstream = this.deps.upstreams();
    this.upstream = upstream;
    this.upstreamBlocked = false;
    try {
      await upstream.start({
        line: (raw) => this.fromUpstream(gen, raw),
        ended: (end) => this.onEnded(gen, end),
        drain: () => {
          if (gen !== this.gen) return;
          this.upstreamBlocked = false;
          // Lines held back while the upstream was full go first, in order, before the client is heard again.
          if (this.state === 'ready') this.flushQueue();
          this.updateClientFlow();
        },
      });
    } catch (error) {
      // A first start that fails (command not found, URL refusing credentials) is a configuration error: report it and
      // close rather than retry forever; a later one is retried with backoff like any other death.
      if (gen === this.gen)
        this.fail({
          message: error instanceof Error ? error.message : String(error),
          exitCode: null,
          signal: null,
          stderrTail: '',
          fatal: !restart,
        });
      return;
    }
    if (gen !== this.gen || this.isClosed()) return;
    this.generationStartedAt = this.deps.clock.monotonic();
    if (restart) this.restarts++;
    this.deps.logger.info(`upstream started (pid ${upstream.pid ?? 'unknown'}, generation ${this.launched})`);
    if (this.clientBlocked) upstream.pauseReading();
    if (restart && !(await this.replayHandshake(gen))) return;
    if (gen !== this.gen || this.isClosed()) return;
    this.state = 'ready';
    this.keepalive.start();
    if (restart) this.announceListChanges();
    this.flushQueue();
    this.updateClientFlow();
  }

  /** Puts the restarted upstream where the client believes it is; false when it failed or the guard must close. */
  private async replayHandshake(gen: number): Promise<boolean> {
    const limit = this.settings.handshakeTimeoutMs;
    if (this.era === 'handshake' && this.init?.result) {
      const known = this.init.result;
      const answer = await this.internalRequest(gen, 'initialize', this.init.params, limit);
      if (gen !== this.gen || this.isClosed()) return false;
      const result = this.judgeReplay(answer, 'initialize', limit);
      if (!result) return false;
      const version = typeof result.protocolVersion === 'string' ? result.protocolVersion : '';
      if (version !== known.protocolVersion) {
        return this.cannotHide(
          `the restarted upstream negotiated protocol version ${version || '(none)'} instead of ${known.protocolVersion}`,
        );
      }
      const lost = lostCapabilities(known.capabilities, result.capabilities);
      if (lost.length) return this.cannotHide(`the restarted upstream no longer offers ${lost.join(', ')}`);
      if (this.initializedLine) this.writeUpstream(this.initializedLine);
      return true;
    }
    if (this.era === 'modern' && this.modern) {
      const known = this.modern;
      const answer = await this.internalRequest(gen, 'server/discover', { _meta: known.meta }, limit);
      if (gen !== this.gen || this.isClosed()) return false;
      const result = this.judgeReplay(answer, 'server/discover', limit);
      if (!result) return false;
      const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
      if (!versions.includes(known.version)) {
        return this.cannotHide(`the restarted upstream no longer supports protocol version ${known.version}`);
      }
      const lost = known.capabilities ? lostCapabilities(known.capabilities, result.capabilities) : [];
      if (lost.length) return this.cannotHide(`the restarted upstream no longer offers ${lost.join(', ')}`);
      return true;
    }
    return true;
  }

  private judgeReplay(answer: InternalAnswer, method: string, limit: number): Record<string, unknown> | null {
    if (answer === 'aborted') return null;
    if (answer === 'timeout') {
      this.fail({
        message: `upstream did not answer the replayed ${method} within ${limit} ms`,
        exitCode: null,
        signal: null,
        stderrTail: '',
      });
      return null;
    }
    if (answer.error || !isRecord(answer.result)) {
      const detail = answer.error ? `${String(answer.error.code)} ${String(answer.error.message ?? '')}` : 'a malformed result';
      this.fail({ message: `upstream answered the replayed ${method} with ${detail}`, exitCode: null, signal: null, stderrTail: '' });
      return null;
    }
    return answer.result;
  }

  private cannotHide(reason: string): false {
    this.deps.logger.error(`${reason}; closing the connection so that the client reconnects and sees the change`);
    void this.close(1);
    return false;
  }

  private announceListChanges(): void {
    const capabilities = this.init?.result?.capabilities ?? this.modern?.capabilities ?? {};
    for (const capability of CAPABILITIES_WITH_LISTS) {
      if (capability in capabilities) this.writeClient(line({ jsonrpc: '2.0', method: `notifications/${capability}/list_changed` }));
    }
  }

  private flushQueue(): void {
    while (this.queue.length && this.state === 'ready' && !this.upstreamBlocked) {
      const next = this.queue.shift()!;
      this.forwardFromClient(next.raw, next.route);
    }
    if (this.clientEnded) this.closeIfDrained();
  }

  private onEnded(gen: number, end: UpstreamEnd): void {
    if (gen !== this.gen || this.state === 'closed') return;
    this.fail(end);
  }

  /** The current generation is dead: answer what it left open, and schedule the next one. */
  private fail(end: UpstreamEnd): void {
    if (this.state === 'closed') return;
    const restartFailed = this.state === 'restarting' || (this.state === 'starting' && this.launched > 1);
    this.keepalive.stop();
    this.abortInternal();
    const dead = this.upstream;
    this.upstream = null;
    this.gen++;
    void dead?.close();
    this.lastError = { ...end, atMs: this.deps.clock.wall() };
    const tail = end.stderrTail.trim() ? `; stderr: ${end.stderrTail.trim().split('\n').slice(-3).join(' | ')}` : '';
    // The client is told what the server said it lacks (not just "exited with code 1"), as the monitor's cause does.
    const said = `${end.message}${stderrCause(end)}`;
    if (end.fatal) {
      this.deps.logger.error(said);
      for (const id of this.inFlight.keys()) this.writeClient(errorResponse(id, UPSTREAM_FAILED_CODE, said));
      this.inFlight.clear();
      void this.close(1);
      return;
    }
    if (this.clientEnded) {
      // Nobody is left to use a restarted upstream: what the client sent is answered with the cause instead.
      this.deps.logger.warn(`${said}; not restarting, the client has closed its input${tail}`);
      this.answerAllWithError(said);
      void this.close(0);
      return;
    }
    this.deps.logger.warn(`${said}; restarting${tail}`);
    const reason = `${said}; restarting`;
    // What the dead upstream never saw goes first to the next one, in its original order.
    const retry: Array<{ raw: Buffer; route: Route }> = [];
    for (const sent of end.unsent ?? []) {
      // Back to the client's own ids: the line is forwarded (and marked) again like any other.
      const raw = clientForm(sent);
      const route = routeLine(raw);
      for (const id of requestIds(route)) this.inFlight.delete(id);
      retry.push({ raw: Buffer.from(raw), route });
    }
    this.queue.unshift(...retry);
    for (const [id, entry] of this.inFlight) {
      this.record(entry.method, this.deps.clock.monotonic() - entry.startedAt, true);
      this.writeClient(errorResponse(id, UPSTREAM_FAILED_CODE, reason));
    }
    this.inFlight.clear();
    for (const id of this.serverRequests) {
      this.writeClient(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }));
    }
    this.serverRequests.clear();
    if (restartFailed) {
      // Requests that already waited through one restart are not held through a crash loop.
      for (const queued of this.queue.splice(0)) {
        for (const id of requestIds(queued.route)) this.writeClient(errorResponse(id, UPSTREAM_FAILED_CODE, reason));
      }
    }
    if (this.init && !this.init.result) {
      // The client's own initialize just failed: it starts over, there is nothing to replay.
      this.init = null;
      this.initializedLine = null;
      this.era = 'unknown';
    }
    this.upstreamBlocked = false;
    this.state = 'restarting';
    this.updateClientFlow();
    const requested = this.restartRequested;
    this.restartRequested = false;
    if (this.deps.clock.monotonic() - this.generationStartedAt >= this.settings.healthyResetMs) {
      this.attempt = 0;
      this.crashes.reset();
    }
    if (!requested && this.crashLoopEnds(end)) return;
    const delay = backoffDelay(this.attempt++, this.settings.backoff, this.deps.random);
    this.restartTimer = this.deps.clock.setTimeout(() => void this.startGeneration(), delay);
  }

  /** The monitor's crash-loop rule (src/core/monitor/crashLoop.ts): true when the guard gave up on the upstream. */
  private crashLoopEnds(end: UpstreamEnd): boolean {
    const rule = crashLoopSettings(this.settings.crashLoop);
    if (!this.crashes.recordCrash(this.deps.clock.monotonic(), rule)) return false;
    const exit = end.exitCode !== null ? ` (exit code ${end.exitCode})` : end.signal ? ` (${end.signal})` : '';
    this.gaveUp = `${gaveUpReason(rule)}; last: ${end.message}${exit}${stderrCause(end)}; not restarted until a restart from MCP Health`;
    this.deps.logger.error(this.gaveUp);
    this.state = 'gave-up';
    for (const queued of this.queue.splice(0)) {
      if (queued.route.kind === 'request') this.writeClient(errorResponse(queued.route.id, UPSTREAM_FAILED_CODE, this.gaveUp));
    }
    this.updateClientFlow();
    return true;
  }

  private isClosed(): boolean {
    return this.state === 'closed';
  }

  async close(code: number): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.restartTimer) this.deps.clock.clearTimeout(this.restartTimer);
    this.restartTimer = null;
    if (this.drainTimer) this.deps.clock.clearTimeout(this.drainTimer);
    this.drainTimer = null;
    this.keepalive.stop();
    this.abortInternal();
    const upstream = this.upstream;
    this.upstream = null;
    this.gen++;
    await upstream?.close();
    this.deps.client.end();
    this.deps.onClosed(code);
  }
}

/**
 * `: <the line of stderr that says why>` (src/core/stderrCause.ts) for an upstream that exited by itself; nothing for
 * one ended by a signal (its stderr says how it started, not why something outside killed it) or that wrote nothing.
 */
function stderrCause(end: UpstreamEnd): string {
  const finding = end.signal === null && end.stderrTail.trim() ? stderrFinding(end.stderrTail) : null;
  return finding ? `: ${finding.line}` : '';
}

function forgetCancelled(books: { delete(id: JsonRpcId): boolean }, params: Record<string, unknown> | undefined): void {
  const id = params?.requestId;
  if (typeof id === 'string' || typeof id === 'number') books.delete(id);
}

/** The params of a line routeLine() found to be a request or notification (so it parses). */
function paramsOf(raw: Buffer): Record<string, unknown> | undefined {
  const message = classifyLine(raw);
  return message.kind === 'request' || message.kind === 'notification' ? message.params : undefined;
}

/** The result or error of a line routeLine() found to be a response. */
function outcomeOf(raw: Buffer): Outcome {
  const message = classifyLine(raw);
  return message.kind === 'response' ? message : {};
}

function outcomeOfMessage(parsed: unknown): Outcome {
  const message = classify(parsed);
  return message.kind === 'response' ? message : {};
}

/** The ids of the client's requests in a line (one, or those of a batch). */
function requestIds(route: Route): JsonRpcId[] {
  if (route.kind === 'request') return [route.id];
  if (route.kind === 'batch') return route.items.flatMap((item) => (item.kind === 'request' ? [item.id] : []));
  return [];
}

/** A notifications/cancelled message with its requestId passed through `map`. */
function cancelling(message: unknown, map: (id: JsonRpcId) => JsonRpcId): unknown {
  const record = message as { params: Record<string, unknown> };
  return { ...record, params: { ...record.params, requestId: map(record.params.requestId as JsonRpcId) } };
}

/** A line as the client wrote it, from the form the upstream was sent (marked ids unmarked); rare: HTTP resends. */
function clientForm(raw: Buffer): Buffer {
  const route = routeLine(raw);
  const unmark = (id: JsonRpcId): JsonRpcId => (typeof id === 'string' ? (clientIdOf(id) ?? id) : id);
  const marked = (id: unknown): boolean => typeof id === 'string' && clientIdOf(id) !== null;
  if (route.kind === 'request') return marked(route.id) ? withTopId(raw, unmark(route.id)) : raw;
  if (route.kind !== 'notification' && route.kind !== 'batch') return raw;
  const parsed = JSON.parse(raw.toString('utf8')) as unknown;
  let changed = false;
  const restore = (element: unknown): unknown => {
    const message = classify(element);
    if (message.kind === 'request' && marked(message.id)) {
      changed = true;
      return { ...(element as Record<string, unknown>), id: unmark(message.id) };
    }
    if (message.kind === 'notification' && message.method === 'notifications/cancelled' && marked(message.params?.requestId)) {
      changed = true;
      return cancelling(element, unmark);
    }
    return element;
  };
  const restored = Array.isArray(parsed) ? parsed.map(restore) : restore(parsed);
  return changed ? line(restored) : raw;
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function lostCapabilities(before: Record<string, unknown>, after: unknown): string[] {
  const now = isRecord(after) ? after : {};
  return Object.keys(before).filter((key) => !(key in now));
}
