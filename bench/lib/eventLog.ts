// Timestamps every registry event the moment it is delivered, and lets a trial wait for the next one that matches.
import { performance } from 'node:perf_hooks';
import type { MonitorEvent, MonitorRegistry } from '../../src/core/monitorTypes';

export interface StampedEvent {
  readonly t: number;
  /** Date.now() at delivery: the registry's own times (a status's nextRetryAt) are wall-clock times. */
  readonly wall: number;
  readonly event: MonitorEvent;
}

type Waiter = {
  readonly from: number;
  readonly match: (event: MonitorEvent) => boolean;
  readonly resolve: (stamped: StampedEvent) => void;
};

export class EventLog {
  readonly events: StampedEvent[] = [];
  readonly #waiters = new Set<Waiter>();
  readonly #unsubscribe: () => void;

  constructor(registry: MonitorRegistry) {
    this.#unsubscribe = registry.onEvent((event) => {
      const stamped = { t: performance.now(), wall: Date.now(), event };
      this.events.push(stamped);
      for (const waiter of this.#waiters) {
        if (waiter.match(event)) {
          this.#waiters.delete(waiter);
          waiter.resolve(stamped);
        }
      }
    });
  }

  /** The first event at or after index `from` that matches; rejects after timeoutMs. */
  waitFor(match: (event: MonitorEvent) => boolean, timeoutMs: number, from = this.events.length, what = 'event'): Promise<StampedEvent> {
    const seen = this.events.slice(from).find((stamped) => match(stamped.event));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        from,
        match,
        resolve: (stamped) => {
          clearTimeout(timer);
          resolve(stamped);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  countSince(from: number, until: number, match: (event: MonitorEvent) => boolean): number {
    return this.events.filter((stamped, index) => index >= from && stamped.t <= until && match(stamped.event)).length;
  }

  dispose(): void {
    this.#unsubscribe();
  }
}

export const stateTo =
  (id: string, to: string) =>
  (event: MonitorEvent): boolean =>
    event.type === 'state' && event.id === id && event.to === to;
export const leftUp =
  (id: string) =>
  (event: MonitorEvent): boolean =>
    event.type === 'state' && event.id === id && event.from === 'up' && event.to !== 'up';
