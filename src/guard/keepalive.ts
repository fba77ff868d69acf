// Keepalive on the real connection, by the rules of protocol.md: a probe only after the upstream has been idle for
// the interval (any upstream traffic counts), one fixed timeout, never a retry, and violations reported once per
// streak so a server that answers wrongly does not flood the log.

import type { Clock, TimerHandle } from '../core/clock';
import type { ProbeMethod } from '../core/model';
import { judgeUnanswered } from '../core/monitor/probePolicy';
import { classifyReply, type JsonRpcReply } from '../core/probeReply';
import { GUARD_ID_PREFIX } from './messages';

/** The era's own probe; the guard has no fallback, since tools/list would be one of the client's requests. */
export type KeepaliveMethod = Extract<ProbeMethod, 'ping' | 'server/discover'>;

export interface KeepaliveHooks {
  /** Writes the probe with this id upstream; returns which method it used, or null when no probe can be sent now. */
  send(id: string): KeepaliveMethod | null;
  /** No answer within the timeout and no other sign of life: the upstream is dead. */
  dead(reason: string): void;
  /** A wrong answer, or a server that ignores probes while answering everything else. */
  violation(reason: string): void;
  /** A proper answer, for the debug log. */
  answered?(method: KeepaliveMethod, rttMs: number): void;
}

export interface KeepaliveSettings {
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

export interface KeepaliveStats {
  readonly probes: number;
  readonly answered: number;
  readonly violations: number;
  readonly lastRttMs: number | null;
  readonly rttsMs: readonly number[];
  /** Set when probing stopped because the server ignores probes while it answers real traffic. */
  readonly stoppedReason: string | null;
}

const RTT_HISTORY = 32;

export class Keepalive {
  private idleTimer: TimerHandle | null = null;
  private timeoutTimer: TimerHandle | null = null;
  private lastActivity: number;
  private outstanding: { id: string; method: KeepaliveMethod; sentAt: number; trafficSince: boolean } | null = null;
  private running = false;
  private sequence = 0;
  private inViolationStreak = false;
  private stats = {
    probes: 0,
    answered: 0,
    violations: 0,
    lastRttMs: null as number | null,
    rttsMs: [] as number[],
    stoppedReason: null as string | null,
  };

  constructor(
    private readonly clock: Clock,
    private readonly settings: KeepaliveSettings,
    private readonly hooks: KeepaliveHooks,
    private readonly idPrefix = `${GUARD_ID_PREFIX}probe-`,
  ) {
    this.lastActivity = clock.monotonic();
  }

  get snapshot(): KeepaliveStats {
    return { ...this.stats, rttsMs: [...this.stats.rttsMs] };
  }

  start(): void {
    if (this.running || this.stats.stoppedReason !== null) return;
    this.running = true;
    this.lastActivity = this.clock.monotonic();
    this.armIdle(this.settings.intervalMs);
  }

  stop(): void {
    this.running = false;
    this.outstanding = null;
    this.clearTimers();
  }

  /**
   * Upstream traffic at `now` (read by the caller, which needs it too). Called for every message, so it only records
   * the time: the idle timer, when it fires, re-arms itself for the remainder instead of being cleared and set again
   * thousands of times in a flood.
   */
  activity(now = this.clock.monotonic()): void {
    this.lastActivity = now;
    if (this.outstanding) this.outstanding.trafficSince = true;
  }

  /** An answer whose id carries the probe prefix; true when it was one of ours (and so must not be forwarded). */
  answer(id: string, outcome: JsonRpcReply): boolean {
    if (!id.startsWith(this.idPrefix)) return false;
    const probe = this.outstanding;
    // A late answer to a probe that already timed out: swallowed, judged no further.
    if (!probe || probe.id !== id) return true;
    this.outstanding = null;
    if (this.timeoutTimer) this.clock.clearTimeout(this.timeoutTimer);
    this.timeoutTimer = null;
    const rtt = this.clock.monotonic() - probe.sentAt;
    this.stats.answered++;
    this.stats.lastRttMs = rtt;
    this.stats.rttsMs.push(rtt);
    if (this.stats.rttsMs.length > RTT_HISTORY) this.stats.rttsMs.shift();
    const problem = wrongAnswer(probe.method, outcome);
    if (problem) {
      this.stats.violations++;
      if (!this.inViolationStreak) this.hooks.violation(problem);
      this.inViolationStreak = true;
    } else {
      this.inViolationStreak = false;
      this.hooks.answered?.(probe.method, rtt);
    }
    if (this.running) this.armIdle(this.settings.intervalMs);
    return true;
  }

  /**
   * A probe at once, whatever the idle time (after a wake: the connection may look fine and not be). A probe still out
   * is abandoned without a verdict: its timeout ran while the process was not running, and its answer, if one comes,
   * is swallowed like any late answer.
   */
  probeNow(): void {
    if (!this.running) return;
    this.outstanding = null;
    this.clearTimers();
    this.send();
  }

  private armIdle(ms: number): void {
    if (this.idleTimer) this.clock.clearTimeout(this.idleTimer);
    this.idleTimer = this.clock.setTimeout(() => this.onIdleTimer(), ms);
  }

  private onIdleTimer(): void {
    this.idleTimer = null;
    if (!this.running || this.outstanding) return;
    const idleFor = this.clock.monotonic() - this.lastActivity;
    if (idleFor < this.settings.intervalMs) {
      this.armIdle(this.settings.intervalMs - idleFor);
      return;
    }
    this.send();
  }

  private send(): void {
    const id = `${this.idPrefix}${++this.sequence}`;
    const method = this.hooks.send(id);
    if (method === null) {
      this.armIdle(this.settings.intervalMs);
      return;
    }
    this.stats.probes++;
    this.outstanding = { id, method, sentAt: this.clock.monotonic(), trafficSince: false };
    this.timeoutTimer = this.clock.setTimeout(() => this.onTimeout(), this.settings.timeoutMs);
  }

  private onTimeout(): void {
    this.timeoutTimer = null;
    const probe = this.outstanding;
    if (!probe || !this.running) return;
    this.outstanding = null;
    const verdict = judgeUnanswered(probe.method, this.settings.timeoutMs, probe.trafficSince);
    this.stop();
    if (verdict.kind === 'stop-probing') {
      this.stats.violations++;
      this.stats.stoppedReason = verdict.reason;
      this.hooks.violation(verdict.reason);
      return;
    }
    this.hooks.dead(verdict.reason);
  }

  private clearTimers(): void {
    if (this.idleTimer) this.clock.clearTimeout(this.idleTimer);
    if (this.timeoutTimer) this.clock.clearTimeout(this.timeoutTimer);
    this.idleTimer = null;
    this.timeoutTimer = null;
  }
}

/** Why an answer breaks the protocol (by core's classifyReply, the monitor's rule), or null when it is a proper one. */
export function wrongAnswer(method: KeepaliveMethod, reply: JsonRpcReply): string | null {
  const judged = classifyReply(method, reply);
  return judged.outcome === 'ok' ? null : `answered the keepalive ${method} with ${judged.detail}`;
}
