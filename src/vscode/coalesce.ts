// Bursts of monitor events (a "ping all" fires one per server) are folded into one view update.

export interface Coalescer {
  /** Asks for the action: at the latest `delayMs` after the first call of a burst. */
  schedule(): void;
  /** Runs a pending action now. */
  flush(): void;
  readonly pending: boolean;
  dispose(): void;
}

export interface CoalesceOptions {
  /**
   * Runs the first call of a burst at once and folds the rest into one run at the end of the window. For views: the
   * first change (a server going down) shows without delay, a burst still costs two renders. Without it, every call
   * waits for the window (a debounce, for files still being written).
   */
  readonly leading?: boolean;
}

export function coalesce(action: () => void, delayMs: number, options: CoalesceOptions = {}): Coalescer {
  let timer: NodeJS.Timeout | undefined;
  let disposed = false;
  /** A call arrived inside the window and waits for its end. */
  let waiting = false;
  const windowEnds = () => {
    timer = undefined;
    if (disposed || !waiting) return;
    waiting = false;
    action();
    // The trailing run opens a window of its own, so a steady stream still runs at most once per window.
    if (options.leading) timer = setTimeout(windowEnds, delayMs);
  };
  return {
    schedule() {
      if (disposed) return;
      if (timer) {
        waiting = true;
        return;
      }
      if (options.leading) {
        action();
      } else {
        waiting = true;
      }
      timer = setTimeout(windowEnds, delayMs);
    },
    flush() {
      if (!timer) return;
      clearTimeout(timer);
      timer = undefined;
      if (waiting && !disposed) {
        waiting = false;
        action();
      }
    },
    get pending() {
      return waiting;
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
