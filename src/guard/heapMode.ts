// V8's memory-saving mode while the guard is idle, full speed while it carries traffic: what a browser does for a tab in
// the background. A guard lives as long as its client's session, mostly idle between bursts. Left to its defaults V8
// keeps the young generation it grew for a burst of 10,000 requests (about 15 MB more) for the rest of the session,
// because with no allocation after the burst nothing tells it the rate went down; in memory-saving mode the memory
// reducer gives that back within seconds. But the mode also costs about a sixth of the guard's CPU per message, and
// not only while it is on: code V8 optimises in that mode stays slower. Scratch runs of 2026-12-07, CPU per burst of
// 10,000 (mean of 4 runs each): always on 51 ms, never 47, off from the first line 47, off only once a second carried
// 1,000 lines 52 (the hot code was optimised by then). RSS 20 s after the bursts: 51 MB with the mode back on, 65-71
// without; idle after a handshake and 200 pings 45 MB either way. V8 reads the flag as it goes.

import type { Clock, TimerHandle } from '../core/clock';

/** How long without a line before memory-saving mode is back on: between this and twice this after the last one. */
export const HEAP_QUIET_MS = 1000;

export class HeapModeByTraffic {
  private saving = true;
  private sawTraffic = false;
  private timer: TimerHandle | null = null;

  /** `setSaving(true)` is called at once: a guard starts idle. */
  constructor(
    private readonly setSaving: (saving: boolean) => void,
    private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
    private readonly quietMs = HEAP_QUIET_MS,
  ) {
    setSaving(true);
  }

  /** A line went through, either way; called for every one, so it costs a store and a test. */
  traffic(): void {
    this.sawTraffic = true;
    if (!this.saving) return;
    this.saving = false;
    this.setSaving(false);
    this.arm();
  }

  dispose(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    this.sawTraffic = false;
    this.timer = this.clock.setTimeout(() => this.check(), this.quietMs);
  }

  /** A timer per quiet period while busy, none while idle. */
  private check(): void {
    this.timer = null;
    if (this.sawTraffic) {
      this.arm();
      return;
    }
    this.saving = true;
    this.setSaving(true);
  }
}
