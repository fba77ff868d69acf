// When a server without a connection is tried again: jittered backoff after a failure, the backoff ceiling after
// refused credentials, the check interval in check mode. One timer; its due time is shown as the next retry.

import type { TimerHandle } from '../clock';
import type { MonitorMode } from '../monitorTypes';
import { backoffDelay, type BackoffSettings } from './backoff';
import { BACKOFF_CEILING_MS } from './crashLoop';
import { checkIntervalFor } from './intervals';
import { say, type ServerScope } from './serverScope';

export interface ReconnectContext extends ServerScope {
  readonly random: () => number;
  mode(): MonitorMode;
  /** Only a started, undisposed, ungated monitor reconnects on its own. */
  allowed(): boolean;
  /** The retry time shown in the views (null: none planned). */
  setRetryAt(wallTime: number | null): void;
  /** A failed retry leaves the state `down` (no state event): the views still need the new retry time. */
  announce(): void;
  reconnect(): void;
}

export class ReconnectSchedule {
  private timer: TimerHandle | null = null;
  private attempt = 0;

  constructor(private readonly context: ReconnectContext) {}

  get pending(): boolean {
    return this.timer !== null;
  }

  /** The server proved healthy (or the user asked for a reconnect): the next failure starts at the shortest delay. */
  resetBackoff(): void {
    this.attempt = 0;
  }

  afterFailure(): void {
    if (!this.context.allowed()) {
      return;
    }
    if (this.context.mode() === 'check') {
      // A server the user wants checked rarely is not restarted in a loop when it fails: the next check will tell.
      this.at(checkIntervalFor(this.context.settings()));
      return;
    }
    const delay = backoffDelay(this.attempt, cappedBackoff(this.context.settings().backoff), this.context.random);
    this.attempt += 1;
    this.at(delay);
  }

  /** Credentials do not appear by themselves: retry rarely (at the backoff ceiling), or when the user asks. */
  afterAuthFailure(): void {
    if (this.context.allowed()) {
      const settings = this.context.settings();
      this.at(this.context.mode() === 'check' ? checkIntervalFor(settings) : cappedBackoff(settings.backoff).maxMs);
    }
  }

  /** Check mode: the connection closed after its one probe; the next visit is one check interval away. */
  afterCheck(): void {
    if (this.context.allowed()) {
      this.at(checkIntervalFor(this.context.settings()));
    }
  }

  clear(): void {
    if (this.timer) {
      this.context.clock.clearTimeout(this.timer);
      this.timer = null;
      this.context.setRetryAt(null);
    }
  }

  private at(delayMs: number): void {
    this.clear();
    const { clock } = this.context;
    say(this.context, 'info', `reconnecting in ${Math.round(delayMs)} ms`);
    this.context.setRetryAt(clock.wall() + delayMs);
    this.timer = clock.setTimeout(() => {
      this.timer = null;
      this.context.reconnect();
    }, delayMs);
    this.context.announce();
  }
}

/** Until a crash loop is given up on, no wait grows past BACKOFF_CEILING_MS, whatever the settings say. */
function cappedBackoff(backoff: BackoffSettings): BackoffSettings {
  return { initialMs: Math.min(backoff.initialMs, BACKOFF_CEILING_MS), maxMs: Math.min(backoff.maxMs, BACKOFF_CEILING_MS) };
}
