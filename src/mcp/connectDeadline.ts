// One bound for a whole connect attempt (spawn, era probe, handshake, a fallback), from a timeout and the caller's signal.

import { ConnectError } from '../core/connection';

export class ConnectDeadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly startedAt = performance.now();
  private readonly detachOuter: () => void;

  constructor(
    private readonly timeoutMs: number,
    outer?: AbortSignal,
  ) {
    this.timer = setTimeout(
      () => this.controller.abort(new ConnectError('timeout', `No answer within ${timeoutMs} ms while connecting`)),
      timeoutMs,
    );
    const onOuterAbort = (): void => this.controller.abort(new ConnectError('timeout', 'Connect cancelled'));
    if (outer?.aborted) onOuterAbort();
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    this.detachOuter = () => outer?.removeEventListener('abort', onOuterAbort);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return Math.max(0, this.timeoutMs - (performance.now() - this.startedAt));
  }

  /**
   * Settles with `work`, unless the deadline passes first: then `abandon` tears down whatever `work` was building
   * and the deadline's ConnectError is thrown. `work` keeps running to its own end, its outcome ignored.
   */
  async race<T>(work: Promise<T>, abandon: () => Promise<void>): Promise<T> {
    work.catch(() => undefined);
    const signal = this.controller.signal;
    if (signal.aborted) {
      await abandon();
      throw signal.reason;
    }
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([work, aborted]);
    } catch (error) {
      if (signal.aborted) await abandon();
      throw error;
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.detachOuter();
  }
}
