// *Slow*: between up and down. A server whose answers keep taking longer than its threshold is flagged; one slow
// answer is not enough (a GC pause, a cold cache), and one fast answer does not clear it. Off unless configured.

import type { ServerConfig } from '../model';
import type { MonitorSettings, SlowSettings } from '../monitorTypes';

export type { SlowSettings } from '../monitorTypes';

export const defaultSlowSettings: SlowSettings = { thresholdMs: null, serverThresholdMs: {}, enterAfter: 3, clearAfter: 3 };

export function slowThresholdFor(config: ServerConfig, settings: MonitorSettings): number | null {
  const slow = settings.slow ?? defaultSlowSettings;
  const configured = slow.serverThresholdMs[config.id] ?? slow.serverThresholdMs[config.name] ?? slow.thresholdMs;
  return configured !== null && Number.isFinite(configured) && configured > 0 ? configured : null;
}

export class SlowDetector {
  private flagged = false;
  private above = 0;
  private below = 0;

  get slow(): boolean {
    return this.flagged;
  }

  /** One answered probe's round trip. Returns 'entered' or 'cleared' when the flag changed. */
  record(rttMs: number, thresholdMs: number | null, settings: SlowSettings): 'entered' | 'cleared' | null {
    if (thresholdMs === null) return this.reset();
    if (rttMs > thresholdMs) {
      this.above += 1;
      this.below = 0;
      if (!this.flagged && this.above >= Math.max(1, settings.enterAfter)) {
        this.flagged = true;
        return 'entered';
      }
    } else {
      this.below += 1;
      this.above = 0;
      if (this.flagged && this.below >= Math.max(1, settings.clearAfter)) {
        this.flagged = false;
        return 'cleared';
      }
    }
    return null;
  }

  /** A failure or a new connection: what was measured before says nothing about the next answers. */
  reset(): 'cleared' | null {
    this.above = 0;
    this.below = 0;
    if (!this.flagged) return null;
    this.flagged = false;
    return 'cleared';
  }
}
