// Bounds how many servers connect at once. Starting a thousand servers (or a workspace of many stdio servers) in one
// burst makes every handshake slow, so connects time out and back off, and the burst repeats: a connect storm.

/** How many connects may be under way at once, across every server of one registry. */
export const MAX_CONCURRENT_CONNECTS = 16;

/**
 * How many stdio servers may run their first start at once, given the machine's parallelism (os.availableParallelism(),
 * read by the front end): a Node or Python server's start is CPU-bound for its first seconds (loading modules,
 * unpacking a download), so more starts than cores make every one slower, and ones that fit their budget alone miss
 * it together. At least two, so one slow download does not hold up every other server.
 */
export function concurrentStartsFor(parallelism: number): number {
  return Number.isFinite(parallelism) ? Math.max(2, Math.floor(parallelism)) : DEFAULT_CONCURRENT_STARTS;
}

/** Without a front end's figure (tests, embedders): what a small machine can take. */
export const DEFAULT_CONCURRENT_STARTS = 2;

export class ConnectSlots {
  private inUse = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number = MAX_CONCURRENT_CONNECTS) {}

  /** Resolves with a release function once a slot is free; callers must release exactly once. */
  acquire(): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = () => {
        this.inUse++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.inUse--;
          this.waiting.shift()?.();
        });
      };
      if (this.inUse < this.limit) grant();
      else this.waiting.push(grant);
    });
  }
}
