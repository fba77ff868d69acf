// Lines that arrive together leave together. In a flood one chunk read from a pipe holds hundreds of lines; writing
// each on its own costs a syscall per line, which was most of the guard's CPU in a burst. The stream is corked on the
// first write of a tick and uncorked on the next, so the lines of one chunk become one writev. Node keeps the usual
// semantics: write() still reports backpressure, and end() uncorks first.

import type { Writable } from 'node:stream';

export class TickWriter {
  private corked = false;
  private readonly uncork = (): void => {
    this.corked = false;
    this.stream.uncork();
  };

  constructor(private readonly stream: Pick<Writable, 'cork' | 'uncork' | 'write'>) {}

  /** Queues one line; false means wait for the stream's 'drain'. */
  write(raw: Buffer): boolean {
    if (!this.corked) {
      this.corked = true;
      this.stream.cork();
      process.nextTick(this.uncork);
    }
    return this.stream.write(raw);
  }
}
