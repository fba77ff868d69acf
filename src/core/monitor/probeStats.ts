// Bounded per-server history: the last probes, latency percentiles, uptime share and restart times.

import type { ProbeRecord, ProbeStats } from '../model';

export const PROBE_HISTORY_SIZE = 100;
export const RESTART_HISTORY_SIZE = 50;

/** A server never probed here (not started yet, or run by another process that has not reported). */
export const EMPTY_PROBE_STATS: ProbeStats = {
  samples: 0,
  samplesOk: 0,
  p50Ms: null,
  p95Ms: null,
  uptimePercent: null,
  recent: [],
  restartTimes: [],
  totals: { sent: 0, ok: 0, failed: 0 },
};

/** Nearest-rank percentile of an ascending list; null for an empty list. */
export function percentile(sortedAscending: readonly number[], fraction: number): number | null {
  if (sortedAscending.length === 0) {
    return null;
  }
  const rank = Math.ceil(fraction * sortedAscending.length);
  const index = Math.min(sortedAscending.length - 1, Math.max(0, rank - 1));
  return sortedAscending[index] ?? null;
}

export class ProbeStatistics {
  private readonly records: ProbeRecord[] = [];
  /** Beside the bounded window: how many probes there were in all. */
  private sent = 0;
  private ok = 0;
  private readonly restartWallTimes: number[] = [];
  private observedSince: number | null = null;
  private upSince: number | null = null;
  private upAccumulatedMs = 0;
  /** Whether the current connection has answered a probe since it went up. */
  private verified = false;
  /** The verified up stretch that ended last (monotonic), in case a wake reported late finds it spanning the gap. */
  private lastUp: { from: number; to: number } | null = null;

  record(entry: ProbeRecord): void {
    this.sent += 1;
    if (entry.outcome === 'ok') this.ok += 1;
    // One in, at most one out: shift() moves the start of the array rather than copying a spliced-out one.
    this.records.push(entry);
    if (this.records.length > PROBE_HISTORY_SIZE) this.records.shift();
  }

  recordRestart(wallTime: number): void {
    this.restartWallTimes.push(wallTime);
    if (this.restartWallTimes.length > RESTART_HISTORY_SIZE) {
      this.restartWallTimes.splice(0, this.restartWallTimes.length - RESTART_HISTORY_SIZE);
    }
  }

  /** Observation starts with the first connect attempt; time before it says nothing about the server. */
  startObserving(monotonicNow: number): void {
    this.observedSince ??= monotonicNow;
  }

  /**
   * Called on every state change. Time `up` counts only once a probe answered on that connection: a handshake alone
   * proves little (a server can answer initialize and then never answer again), so an unproven stretch is dropped.
   */
  noteUp(isUp: boolean, monotonicNow: number): void {
    if (isUp && this.upSince === null) {
      this.upSince = monotonicNow;
    } else if (!isUp && this.upSince !== null) {
      if (this.verified) {
        this.upAccumulatedMs += monotonicNow - this.upSince;
        this.lastUp = { from: this.upSince, to: monotonicNow };
      }
      this.upSince = null;
    }
    if (!isUp) {
      this.verified = false;
    }
  }

  /**
   * A stretch the process did not run (the machine slept): it leaves the observed time, and the up time of a stretch
   * under way, as the time before the first connect attempt does. The wake is usually told before anything else
   * after the gap, but I/O that was waiting (a connection closed while asleep) can come first and end an up stretch
   * that spans the gap: that stretch gives the gap back too.
   */
  unobserved(monotonicFrom: number, monotonicTo: number): void {
    const overlap = (since: number) => Math.max(0, monotonicTo - Math.max(since, monotonicFrom));
    if (this.observedSince !== null) this.observedSince += overlap(this.observedSince);
    if (this.upSince !== null) this.upSince += overlap(this.upSince);
    if (this.lastUp) {
      const counted = Math.min(this.lastUp.to, monotonicTo) - Math.max(this.lastUp.from, monotonicFrom);
      if (counted > 0) this.upAccumulatedMs -= counted;
      this.lastUp = null;
    }
  }

  /** A probe answered on the current connection: its time up (from the connect on) is now counted. */
  noteVerified(): void {
    this.verified = true;
  }

  uptimePercent(monotonicNow: number): number | null {
    if (this.observedSince === null) {
      return null;
    }
    const observed = monotonicNow - this.observedSince;
    const current = this.upSince !== null && this.verified ? monotonicNow - this.upSince : 0;
    const up = this.upAccumulatedMs + current;
    if (observed <= 0) {
      return current > 0 || (this.upSince !== null && this.verified) ? 100 : 0;
    }
    return Math.min(100, Math.max(0, (up / observed) * 100));
  }

  snapshot(monotonicNow: number): ProbeStats {
    const okRtts = this.records
      .filter((entry) => entry.outcome === 'ok' && entry.rttMs !== undefined)
      .map((entry) => entry.rttMs as number)
      .sort((a, b) => a - b);
    return {
      samples: this.records.length,
      samplesOk: this.records.filter((entry) => entry.outcome === 'ok').length,
      p50Ms: percentile(okRtts, 0.5),
      p95Ms: percentile(okRtts, 0.95),
      uptimePercent: this.uptimePercent(monotonicNow),
      recent: [...this.records],
      restartTimes: [...this.restartWallTimes],
      totals: { sent: this.sent, ok: this.ok, failed: this.sent - this.ok },
    };
  }
}
