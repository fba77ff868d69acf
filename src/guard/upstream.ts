// What the guard needs from one upstream connection (one generation): raw lines in, raw lines out, backpressure both
// ways, and one report of how it ended. The stdio child implements it; an HTTP session can too.

import type { ProcessEnd } from '../core/model';

export interface UpstreamEnd extends ProcessEnd {
  /** Retrying cannot help (credentials refused, OAuth demanded): the guard closes instead of restarting. */
  readonly fatal?: boolean;
  /** Lines the upstream provably never processed (an unknown session): sent again to the next generation. */
  readonly unsent?: readonly Buffer[];
}

export interface UpstreamEvents {
  /** One complete line from the upstream, newline included. */
  line(raw: Buffer): void;
  /** The upstream is gone by itself (not through close()); called at most once. */
  ended(end: UpstreamEnd): void;
  /** The upstream can take more input after write() returned false. */
  drain(): void;
}

export interface Upstream {
  readonly pid: number | null;
  /** Resolves once the upstream can take input; rejects with a readable reason when it cannot be started. */
  start(events: UpstreamEvents): Promise<void>;
  /** Queues one line; false means stop writing until drain(). */
  write(raw: Buffer): boolean;
  /** Stop and resume delivering lines (backpressure from the client side). */
  pauseReading(): void;
  resumeReading(): void;
  /** Ends the upstream for good (kills a stdio child's whole process group). */
  close(): Promise<void>;
}

export type UpstreamFactory = () => Upstream;
