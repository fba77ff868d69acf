// A local channel's messages on the wire: one JSON object per line. The line framing is lineSplitter's (the one the
// guard and the stdio decoder use); this adds only what a channel needs on top: JSON objects, garbage reported and
// skipped, and a line over the bound ending the stream.

import { LineSplitter } from './lineSplitter';

export type ChannelMessage = Record<string, unknown>;

export interface FrameSink {
  message(message: ChannelMessage): void;
  garbage(preview: string): void;
  /** A line longer than the bound: the peer cannot be trusted, its connection is closed. */
  overflow(): void;
}

const GARBAGE_PREVIEW_CHARS = 120;

/** Splits a byte stream into JSON-object lines, holding at most maxLineBytes of an unfinished line. */
export class JsonLineFramer {
  private readonly splitter: LineSplitter;
  private dead = false;

  constructor(
    private readonly sink: FrameSink,
    private readonly maxLineBytes: number,
  ) {
    this.splitter = new LineSplitter({ line: (raw) => this.line(raw), overflow: () => this.overflow() }, maxLineBytes);
  }

  push(chunk: Buffer): void {
    if (!this.dead) this.splitter.push(chunk);
  }

  private line(raw: Buffer): void {
    if (this.dead) return;
    // The splitter bounds only what it holds; a whole long line in one chunk is held to the same bound here.
    if (raw.length - 1 > this.maxLineBytes) return this.overflow();
    const text = raw.toString('utf8').trim();
    if (text === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.sink.garbage(text.slice(0, GARBAGE_PREVIEW_CHARS));
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return this.sink.garbage(text.slice(0, GARBAGE_PREVIEW_CHARS));
    this.sink.message(parsed as ChannelMessage);
  }

  private overflow(): void {
    if (this.dead) return;
    this.dead = true;
    this.sink.overflow();
  }
}

export function encode(message: ChannelMessage): string {
  // JSON.stringify never emits a raw newline (it escapes them inside strings), so one message is one line.
  return `${JSON.stringify(message)}\n`;
}
