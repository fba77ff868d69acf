// Lines that arrive together leave together. In a flood one chunk read from a pipe holds hundreds of lines; writing
// each on its own costs a syscall per line, which was most of the guard's CPU in a burst. The stream is corked on the
// first write of a tick and uncorked on the next, so the lines of one chunk become one writev. Lines forwarded as they
// came are views of the chunk they were read from, one after the other: those are merged into one view of the chunk
// before they reach the stream, so a flood costs the stream one buffered write per chunk instead of one per line (its
// bookkeeping per write was most of the guard's garbage in a burst). Node keeps the usual semantics: write() reports
// backpressure as soon as the stream is over its high-water mark; flush() before end().

import type { Writable } from 'node:stream';

type Stream = Pick<Writable, 'cork' | 'uncork' | 'write' | 'writableLength' | 'writableHighWaterMark'>;

export class TickWriter {
  private corked = false;
  /** The run of adjacent bytes not yet handed to the stream: [start, end) of `pending`'s memory. */
  private pending: Buffer | null = null;
  private pendingEnd = 0;
  private readonly uncork = (): void => {
    this.corked = false;
    this.flush();
    this.stream.uncork();
  };

  constructor(private readonly stream: Stream) {}

  /** Queues one line; false means wait for the stream's 'drain'. */
  write(raw: Buffer): boolean {
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      process.nextTick(this.uncork);
    }
    const pending = this.pending;
    if (pending !== null && raw.buffer === pending.buffer && raw.byteOffset === this.pendingEnd) {
      // The bytes right after the pending run in the same memory: the run grows, nothing is copied.
      this.pendingEnd += raw.length;
    } else {
      this.flush();
      this.pending = raw;
      this.pendingEnd = raw.byteOffset + raw.length;
    }
    // Over the mark, the run goes to the stream now, so the stream's own answer (and its 'drain') is the one reported.
    if (this.stream.writableLength + this.pendingLength() < this.stream.writableHighWaterMark) return true;
    return this.flush();
  }

  private pendingLength(): number {
    return this.pending === null ? 0 : this.pendingEnd - this.pending.byteOffset;
  }

  /**
   * Hands the pending run to the stream; the stream's write() result, true when nothing was pending. Called before
   * the stream is ended, since end() flushes only what the stream itself holds.
   */
  flush(): boolean {
    const pending = this.pending;
    if (pending === null) return true;
    this.pending = null;
    const length = this.pendingEnd - pending.byteOffset;
    const run = length === pending.length ? pending : Buffer.from(pending.buffer, pending.byteOffset, length);
    return this.stream.write(run);
  }
}
