// Bounds how many servers connect at once. Starting a thousand servers (or a workspace of many stdio servers) in one
// burst makes every handshake slow, so connects time out and back off, and the burst repeats: a connect storm.

/** How many connects may be under way at once, across every server of one registry. */
export const MAX_CONCURRENT_CONNECTS = 16;

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
