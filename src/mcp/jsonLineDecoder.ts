// Newline-delimited JSON-RPC framing for a child's stdout: tolerant of garbage lines, bounded in memory.

import { isJsonRpcMessage } from './jsonRpcShape';
import { LineSplitter } from './lineSplitter';

export interface JsonLineSink {
  message(message: unknown): void;
  /** A line that is not a JSON-RPC message (log output on stdout, a banner...): dropped, but worth a debug line. */
  garbage(line: string): void;
  /** The peer sent more than the bound without a newline: the stream cannot be trusted any more. */
  overflow(bufferedBytes: number): void;
}

const GARBAGE_PREVIEW_CHARS = 200;

export class JsonLineDecoder {
  private readonly lines: LineSplitter;
  garbageLines = 0;

  constructor(
    private readonly sink: JsonLineSink,
    maxLineBytes: number,
  ) {
    // Each line arrives with its newline, which the parse does not want.
    this.lines = new LineSplitter(
      { line: (raw) => this.emit(raw.subarray(0, raw.length - 1)), overflow: (bytes) => sink.overflow(bytes) },
      maxLineBytes,
    );
  }

  push(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  private emit(line: Buffer): void {
    let text = line.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    const first = firstNonBlank(text);
    if (first === -1) return;
    const opener = text.charCodeAt(first);
    // Cheap pre-check: most stray stdout output does not even look like JSON, so skip the parse attempt.
    if (opener !== 0x7b /* { */ && opener !== 0x5b /* [ */) return this.reject(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.reject(text);
    }
    if (Array.isArray(parsed)) {
      // A JSON-RPC batch (2025-03-26 allowed them): deliver each member on its own.
      if (parsed.length === 0 || !parsed.every(isJsonRpcMessage)) return this.reject(text);
      for (const member of parsed) this.sink.message(member);
      return;
    }
    if (!isJsonRpcMessage(parsed)) return this.reject(text);
    this.sink.message(parsed);
  }

  private reject(text: string): void {
    this.garbageLines++;
    this.sink.garbage(text.length > GARBAGE_PREVIEW_CHARS ? `${text.slice(0, GARBAGE_PREVIEW_CHARS)}…` : text);
  }
}

function firstNonBlank(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return i;
  }
  return -1;
}
