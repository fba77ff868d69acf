// Keepalive on an open connection: a probe once the connection has been idle for the interval, each answer recorded
// and judged by the probe policy. Verdicts that keep the connection are carried out here; those that drop it go back
// to the monitor, which owns reconnecting.

import type { TimerHandle } from '../clock';
import type { Connection } from '../connection';
import type { ProbeMethod, ProbeResult } from '../model';
import type { ConnectionLifetime } from './connectionLifetime';
import type { HealthRecord } from './healthRecord';
import { probeIntervalFor, probeTimeoutFor } from './intervals';
import {
  FALLBACK_PROBE_METHOD,
  forgetVerdicts,
  FRESH_MEMORY,
  judgeConnected,
  judgeProbe,
  nextProbe,
  recoveryThreshold,
  type ConnectedFacts,
  type ConnectedVerdict,
  type JudgedProbe,
  type ProbeMemory,
  type ProbeVerdict,
} from './probePolicy';
import { say, type ServerScope } from './serverScope';

/** The verdicts that drop the connection. */
export type DroppingVerdict = Extract<ProbeVerdict, { kind: 'reconnect-once' | 'failed' | 'auth' }>;

export interface KeepaliveContext extends ServerScope {
  readonly lifetime: ConnectionLifetime;
  readonly record: HealthRecord;
  /** Keepalive probes run only once monitoring started, and never after dispose. */
  mayProbe(): boolean;
  disposed(): boolean;
  /** The server answered: the reconnect backoff may start over (unless it is flapping). */
  alive(): void;
  /** A verdict that drops the connection: the monitor tears it down and schedules the reconnect. */
  drop(verdict: DroppingVerdict): void;
}

export class Keepalive {
  /** What the probe verdicts remember about this server (see probePolicy). */
  private memory: ProbeMemory = FRESH_MEMORY;
  private idleTimer: TimerHandle | null = null;
  private lastActivityAt = 0;

  constructor(private readonly context: KeepaliveContext) {}

  get nonConformant(): boolean {
    return this.memory.nonConformantReason !== null;
  }

  get idleProbeScheduled(): boolean {
    return this.idleTimer !== null;
  }

  /** A reconnect the user asked for: the server's past verdicts are forgotten. */
  forget(): void {
    this.memory = forgetVerdicts(this.memory);
  }

  /** A fresh connection: any traffic on it pushes the next probe back. */
  watch(connection: Connection, generation: number): void {
    this.lastActivityAt = this.now();
    connection.onActivity(() => {
      if (this.context.lifetime.isCurrent(generation)) {
        this.lastActivityAt = this.now();
      }
    });
  }

  /** How a fresh connection is shown until a probe answers, and whether that probe is due at once. */
  judgeConnected(facts: Omit<ConnectedFacts, 'recoveryThreshold'>): ConnectedVerdict {
    const verdict = judgeConnected(this.memory, {
      ...facts,
      recoveryThreshold: recoveryThreshold(this.context.settings().successesBeforeUp),
    });
    this.memory = verdict.memory;
    return verdict;
  }

  probeNow(): Promise<ProbeResult> {
    const { lifetime } = this.context;
    const connection = lifetime.connection;
    if (!connection) {
      return Promise.resolve(this.context.record.connectFailureResult());
    }
    return lifetime.probeOnce(() => {
      this.clearIdleTimer();
      return this.probeCycle(connection, lifetime.generation);
    });
  }

  /** The probe is due once the connection has been idle for the interval; traffic in between pushes it back. */
  scheduleIdleProbe(): void {
    this.clearIdleTimer();
    if (!this.context.mayProbe() || !this.context.lifetime.connection) {
      return;
    }
    const interval = probeIntervalFor(this.context.config(), this.context.settings());
    const activityAtSchedule = this.lastActivityAt;
    const wait = Math.max(0, activityAtSchedule + interval - this.now());
    this.idleTimer = this.context.clock.setTimeout(() => {
      this.idleTimer = null;
      if (!this.context.lifetime.connection) {
        return;
      }
      // No traffic since the timer was set: the wait was the interval. Node times its timers on the event loop's
      // whole-millisecond clock, taken at the start of the loop's turn, so a timer often fires a little before
      // `monotonic()` says the interval is over; checking the time again would set a second timer for that sliver.
      if (this.lastActivityAt === activityAtSchedule || this.now() - this.lastActivityAt >= interval) {
        void this.probeNow();
      } else {
        this.scheduleIdleProbe();
      }
    }, wait);
  }

  clearIdleTimer(): void {
    if (this.idleTimer) {
      this.context.clock.clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
  }

  private async probeCycle(connection: Connection, generation: number): Promise<ProbeResult> {
    const { kind, memory } = nextProbe(this.memory, this.now());
    this.memory = memory;
    const firstOnConnection = this.context.lifetime.probesOnConnection === 0;
    this.context.lifetime.countProbe();
    const { result, stale } = await this.sendAndRecord(connection, generation, kind === 'fallback' ? FALLBACK_PROBE_METHOD : undefined);
    if (stale) {
      return result;
    }
    return this.follow(kind === 'default' ? { kind, result, firstOnConnection } : { kind, result }, connection, generation);
  }

  /** Sends one probe and records it, unless its connection was replaced or the monitor disposed meanwhile (stale). */
  private async sendAndRecord(
    connection: Connection,
    generation: number,
    method: ProbeMethod | undefined,
  ): Promise<{ readonly result: ProbeResult; readonly stale: boolean }> {
    const result = await this.context.lifetime.sendProbe(connection, probeTimeoutFor(this.context.settings()), method);
    const stale = !this.context.lifetime.isCurrent(generation) || this.context.disposed();
    if (!stale) {
      this.lastActivityAt = Math.max(this.lastActivityAt, this.now());
      this.context.record.recordProbe(result);
    }
    return { result, stale };
  }

  /** Judges a probe and carries the verdict out; a verdict that asks the fallback first sends it and judges that. */
  private async follow(probe: JudgedProbe, connection: Connection, generation: number): Promise<ProbeResult> {
    const settings = this.context.settings();
    const { verdict, memory } = judgeProbe(probe, this.memory, {
      now: this.now(),
      timeoutMs: probeTimeoutFor(settings),
      recoveryThreshold: recoveryThreshold(settings.successesBeforeUp),
    });
    this.memory = memory;
    if (verdict.kind !== 'ask-fallback' && verdict.kind !== 'check-ignored-ping') {
      this.carryOut(verdict, probe.result);
      return probe.result;
    }
    if (verdict.kind === 'check-ignored-ping') {
      // Fresh connections keep timing out on their first probe. Before restarting the server yet again, ask
      // something else: a server that answers tools/list but not ping is alive, and restarting it starts a storm.
      say(
        this.context,
        'warn',
        `${probe.result.method} timed out on ${verdict.streak} fresh connections in a row; trying ${FALLBACK_PROBE_METHOD}`,
      );
    }
    const fallback = await this.sendAndRecord(connection, generation, FALLBACK_PROBE_METHOD);
    if (fallback.stale) {
      return fallback.result;
    }
    const next: JudgedProbe =
      verdict.kind === 'check-ignored-ping'
        ? { kind: 'ignored-ping-check', result: fallback.result, timedOut: probe.result }
        : { kind: 'fallback', result: fallback.result };
    return this.follow(next, connection, generation);
  }

  private carryOut(verdict: Exclude<ProbeVerdict, { kind: 'ask-fallback' | 'check-ignored-ping' }>, result: ProbeResult): void {
    const { record } = this.context;
    switch (verdict.kind) {
      case 'up':
      case 'recovering':
        if (verdict.conformantAgain) {
          say(this.context, 'info', `${result.method} answered properly again; no longer non-conformant`);
        }
        this.context.alive();
        if (verdict.kind === 'up') {
          record.transition('up', verdict.reason);
        } else {
          say(this.context, 'info', `recovering: ${verdict.answered}/${verdict.needed} probes answered`);
        }
        break;
      case 'alive-suspect':
        this.context.alive();
        record.transition('suspect', verdict.reason);
        break;
      case 'non-conformant':
        if (!verdict.alive) record.noteFailure();
        say(this.context, 'warn', `non-conformant (${verdict.reason}); probing with ${FALLBACK_PROBE_METHOD} instead of reconnecting`);
        record.transition('suspect', `non-conformant: ${verdict.reason}`, verdict.error);
        if (verdict.alive) this.context.alive();
        break;
      default:
        this.context.drop(verdict);
        return;
    }
    this.scheduleIdleProbe();
  }

  private now(): number {
    return this.context.clock.monotonic();
  }
}
