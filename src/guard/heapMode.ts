// V8's memory-saving mode unless the guard carries a flood: what a browser does for a tab in the background. A guard
// lives as long as its client's session, mostly idle between bursts. Left to its defaults V8 keeps the young generation
// it grew for a burst of 10,000 requests (about 15 MB more) for the rest of the session, because with no allocation
// after the burst nothing tells it the rate went down; in memory-saving mode the memory reducer gives that back within
// seconds. But the mode also costs about 15 % more of the guard's CPU per message (scratch runs of 2026-12-07, bursts
// of 10,000: 44-56 ms of CPU each with it, 38-47 without; RSS 20 s later 51 MB with, 65-71 without; switched by
// traffic, 39 ms and 51 MB). That is nothing at a few messages a second and a sixth of a flood's cost, so the guard
// leaves the mode when a second carries more than a flood's worth of lines, and goes back after a quiet second. V8
// reads the flag as it goes.

import type { Clock, TimerHandle } from '../core/clock';

/** The period traffic is counted over; memory-saving mode is back between one and two periods after the last line. */
export const HEAP_PERIOD_MS = 1000;
/**
 * Lines in one period (both directions) that make a flood: a client at work sends a few requests a second, a burst
 * thousands; below this the mode costs too little CPU to matter, and leaving it would keep what even a short run
 * of traffic grows (the idle guard after a handshake and a few hundred pings: 44 MB in the mode, 49 without).
 */
export const HEAP_FLOOD_LINES = 1000;

export class HeapModeByTraffic {
  private saving = true;
  /** Lines seen since the period began. */
  private lines = 0;
  private timer: TimerHandle | null = null;

  /** `setSaving(true)` is called at once: a guard starts idle. */
  constructor(
    private readonly setSaving: (saving: boolean) => void,
    private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
    private readonly periodMs = HEAP_PERIOD_MS,
    private readonly floodLines = HEAP_FLOOD_LINES,
  ) {
    setSaving(true);
  }

  /** A line went through, either way; called for every one, so it costs an add and a test or two. */
  traffic(): void {
    this.lines++;
    if (!this.saving) return;
    if (this.lines >= this.floodLines) {
      this.saving = false;
      this.setSaving(false);
    }
    if (this.timer === null) this.timer = this.clock.setTimeout(() => this.periodEnded(), this.periodMs);
  }

  dispose(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** A timer per period while lines come, none while idle. */
  private periodEnded(): void {
    this.timer = null;
    const lines = this.lines;
    this.lines = 0;
    if (lines === 0) {
      if (!this.saving) {
        this.saving = true;
        this.setSaving(true);
      }
      return;
    }
    this.timer = this.clock.setTimeout(() => this.periodEnded(), this.periodMs);
  }
}
