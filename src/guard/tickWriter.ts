// Lines that arrive together leave together. In a flood one chunk read from a pipe holds hundreds of lines; writing
// each on its own costs a syscall per line, which was most of the guard's CPU in a burst. Lines forwarded as they came
// are views of the chunk they were read from, one after the other: those are merged into one view of the chunk (a
// run) and handed to the stream at the end of the tick, so a flood costs the stream one write per chunk instead of one
// per line (its bookkeeping per write was most of the guard's garbage in a burst). When a tick has more than one run
// (a rewritten line between forwarded ones), the stream is corked until the end of the tick, so the runs still leave
// as one writev. A tick with a single run, the usual request or answer, writes it directly: corking for it cost the
// stream's buffered path (about 1 KB of garbage per message) for nothing. Node keeps the usual semantics: write()
// reports backpressure as soon as the stream is over its high-water mark; flush() before end().

import type { Writable } from 'node:stream';

type Stream = Pick<Writable, 'cork' | 'uncork' | 'write' | 'writableLength' | 'writableHighWaterMark'>;

export class TickWriter {
  private scheduled = false;
  private corked = false;
  /** The run of adjacent bytes not yet handed to the stream: [start, end) of `pending`'s memory. */
  private pending: Buffer | null = null;
  private pendingEnd = 0;
  private readonly endOfTick = (): void => {
    this.scheduled = false;
    this.flush();
    if (this.corked) {
      this.corked = false;
      this.stream.uncork();
    }
  };

  constructor(private readonly stream: Stream) {}

  /** Queues one line; false means wait for the stream's 'drain'. */
  write(raw: Buffer): boolean {
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.endOfTick);
    }
    const pending = this.pending;
    if (pending !== null && raw.buffer === pending.buffer && raw.byteOffset === this.pendingEnd) {
      // The bytes right after the pending run in the same memory: the run grows, nothing is copied.
      this.pendingEnd += raw.length;
    } else {
      if (pending !== null && !this.corked) {
        // A second run in this tick: the stream holds the runs until the end of the tick, then writes them at once.
        this.corked = true;
        this.stream.cork();
      }
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
   * the stream is ended, since end() flushes only what the stream itself holds (and uncorks it).
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
