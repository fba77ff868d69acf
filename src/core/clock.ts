// Time is injected so that schedules are tested with fake timers, never with sleeps.

export type TimerHandle = { readonly __timer: unique symbol } | object;

export interface Clock {
  /** Monotonic milliseconds (for RTTs and intervals); never goes backwards. */
  monotonic(): number;
  /** Wall-clock milliseconds since the epoch (for timestamps shown to people). */
  wall(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  monotonic: () => performance.now(),
  wall: () => Date.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    // A monitor's timers must never keep a CLI or an extension host alive on their own.
    handle.unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
