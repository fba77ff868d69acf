// Bursts of monitor events (a "ping all" fires one per server) are folded into one view update.

export interface Coalescer {
  /** Runs the action once, `delayMs` after the first of a burst of calls. */
  schedule(): void;
  /** Runs a pending action now. */
  flush(): void;
  readonly pending: boolean;
  dispose(): void;
}

export function coalesce(action: () => void, delayMs: number): Coalescer {
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  const run = () => {
    timer = undefined;
    if (!disposed) {
      action();
    }
  };
  return {
    schedule() {
      if (!timer && !disposed) {
        timer = setTimeout(run, delayMs);
      }
    },
    flush() {
      if (timer) {
        clearTimeout(timer);
        run();
      }
    },
    get pending() {
      return timer !== undefined;
    },
    dispose() {
      disposed = true;
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
    },
  };
}
