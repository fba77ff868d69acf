// A server that keeps dying and coming back must never look plainly healthy: restarts inside a window raise a flag
// that only a long enough stable stretch clears.

import type { MonitorSettings } from '../monitorTypes';

export class FlapDetector {
  private restartTimes: number[] = [];
  private flagged = false;

  get flapping(): boolean {
    return this.flagged;
  }

  /** Returns true when this restart raised the flag. */
  recordRestart(monotonicNow: number, settings: MonitorSettings['flapping']): boolean {
    this.restartTimes.push(monotonicNow);
    this.restartTimes = this.restartTimes.filter((time) => monotonicNow - time <= settings.windowMs);
    if (!this.flagged && this.restartTimes.length >= settings.restarts) {
      this.flagged = true;
      return true;
    }
    return false;
  }

  /**
   * `aliveSince` is when the current connection was established; restarts only happen at establishment, so a
   * connection alive for stableMs also means stableMs without a restart. Returns true when the flag was cleared.
   */
  noteHealthy(monotonicNow: number, aliveSince: number, settings: MonitorSettings['flapping']): boolean {
    if (this.flagged && monotonicNow - aliveSince >= settings.stableMs) {
      this.flagged = false;
      return true;
    }
    return false;
  }
}
