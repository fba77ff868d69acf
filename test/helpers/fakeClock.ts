// A deterministic Clock for unit tests: time moves only through advance(), timers fire in due order, and pending
// promise chains settle between timers so async reactions happen at the simulated instant they would for real.

import type { Clock, TimerHandle } from '../../src/core/clock';

interface PendingTimer {
  readonly seq: number;
  readonly due: number;
  readonly callback: () => void;
}

/** Lets every queued promise reaction run: setImmediate fires only after the microtask queue has drained. */
export async function flushPromises(rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export class FakeClock implements Clock {
  private nowMs = 0;
  /** How far the wall clock ran ahead of the monotonic one (a suspend during which the monotonic clock stopped). */
  private wallAheadMs = 0;
  private nextSeq = 0;
  private readonly timers = new Map<object, PendingTimer>();

  constructor(private readonly wallOrigin = Date.UTC(2026, 0, 1)) {}

  monotonic(): number {
    return this.nowMs;
  }

  wall(): number {
    return this.wallOrigin + this.nowMs + this.wallAheadMs;
  }

  /**
   * The machine sleeps for `ms`: nothing runs meanwhile, and timers due in it fire late on the next advance().
   * `monotonicStops`: a system suspend on Linux or macOS, where only the wall clock moves (timers are then not late by
   * monotonic reckoning); otherwise a frozen process (SIGSTOP) or Windows, where both clocks move.
   */
  sleep(ms: number, { monotonicStops = false }: { monotonicStops?: boolean } = {}): void {
    if (monotonicStops) this.wallAheadMs += ms;
    else this.nowMs += ms;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const handle = {};
    const delay = Number.isFinite(ms) ? Math.max(0, ms) : 0;
    this.timers.set(handle, { seq: this.nextSeq++, due: this.nowMs + delay, callback });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle);
  }

  /** Timers not yet fired nor cleared: a disposed monitor must leave none. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** Delays of the pending timers from now, soonest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((timer) => timer.due - this.nowMs).sort((a, b) => a - b);
  }

  /** Moves time forward by ms, firing every timer that falls due on the way (in order) with promises flushed between. */
  async advance(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    await flushPromises();
    for (;;) {
      const next = this.earliestDueBy(target);
      if (!next) {
        break;
      }
      this.timers.delete(next.handle);
      this.nowMs = Math.max(this.nowMs, next.timer.due);
      next.timer.callback();
      await flushPromises();
    }
    this.nowMs = target;
    await flushPromises();
  }

  private earliestDueBy(limit: number): { handle: object; timer: PendingTimer } | undefined {
    let best: { handle: object; timer: PendingTimer } | undefined;
    for (const [handle, timer] of this.timers) {
      if (timer.due > limit) {
        continue;
      }
      if (!best || timer.due < best.timer.due || (timer.due === best.timer.due && timer.seq < best.timer.seq)) {
        best = { handle, timer };
      }
    }
    return best;
  }
}
