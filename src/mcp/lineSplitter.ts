// Newline framing that keeps each line's original bytes (newline included): the guard forwards exactly what it
// received instead of a re-serialised copy, and the stdio JSON-RPC decoder parses the same lines. Memory is bounded
// by the longest line allowed.

const NEWLINE = 0x0a;

export interface LineSink {
  line(raw: Buffer): void;
  /** More than the bound arrived without a newline: the stream cannot be framed any more. */
  overflow(bufferedBytes: number): void;
}

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflowed = false;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineBytes: number,
  ) {}

  /** Bytes of an unfinished line held so far. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    let newline = chunk.indexOf(NEWLINE, start);
    while (newline !== -1) {
      this.sink.line(this.takeLine(chunk, start, newline + 1));
      if (this.overflowed) return;
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.pending.push(start === 0 ? chunk : chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.maxLineBytes) {
        this.overflowed = true;
        const buffered = this.pendingBytes;
        this.pending = [];
        this.pendingBytes = 0;
        this.sink.overflow(buffered);
      }
    }
  }

  /** Concatenates only once a line is complete, so a 50 MB message arriving in 64 KB chunks stays linear. */
  private takeLine(chunk: Buffer, start: number, end: number): Buffer {
    if (this.pending.length === 0) return chunk.subarray(start, end);
    this.pending.push(chunk.subarray(start, end));
    const line = Buffer.concat(this.pending, this.pendingBytes + (end - start));
    this.pending = [];
    this.pendingBytes = 0;
    return line;
  }
}
