// Writes a metric's exposition straight into bytes. A scrape at a thousand servers is tens of thousands of lines and
// megabytes of text: building it as strings meant a string per line, a join, then UTF-8 encoding the whole body on
// the way out. Here each line's prefix is encoded once and copied, and counts are written as digits in place.

import { valueText } from './sampledText';

const NEWLINE = 0x0a;
const ZERO = 0x30;

export class ByteWriter {
  private buffer: Buffer;
  private at = 0;

  constructor(sizeHint: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(16, sizeHint));
  }

  /** Bytes written so far. */
  get length(): number {
    return this.at;
  }

  bytes(chunk: Uint8Array): void {
    this.room(chunk.length);
    this.buffer.set(chunk, this.at);
    this.at += chunk.length;
  }

  newline(): void {
    this.room(1);
    this.buffer[this.at++] = NEWLINE;
  }

  /** A sample value as prom-client's getValueAsString writes it (ASCII only). */
  value(value: number): void {
    // Counts and cumulative buckets: the digits of a safe non-negative integer are what `${value}` gives (-0 is "0").
    if (value >= 0 && Number.isSafeInteger(value)) {
      let digits = 1;
      for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
      this.room(digits);
      let rest = value;
      for (let i = this.at + digits - 1; i >= this.at; i--) {
        this.buffer[i] = ZERO + (rest % 10);
        rest = Math.floor(rest / 10);
      }
      this.at += digits;
      return;
    }
    const text = valueText(value);
    this.room(text.length);
    this.at += this.buffer.write(text, this.at, 'latin1');
  }

  /** The bytes written; a view of the writer's buffer, which must not be written again. */
  done(): Buffer {
    return this.buffer.subarray(0, this.at);
  }

  private room(length: number): void {
    if (this.at + length <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + length));
    this.buffer.copy(bigger, 0, 0, this.at);
    this.buffer = bigger;
  }
}
