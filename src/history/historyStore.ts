// The history's persistence in the extension: loads the file once, then writes it at most every FLUSH_MS while
// something changed, and once more on dispose. Writes are async and atomic and never overlap; encoding is the only
// synchronous part (well under a millisecond per server).

import type { Clock, TimerHandle } from '../core/clock';
import { encodeWithinCapSliced, HISTORY_MAX_BYTES, type HistoryRecorder } from '../core/history';
import type { Logger } from '../core/logger';
import { writeFileAtomic } from './atomicWrite';
import { loadHistoryFile, type LoadOutcome } from './historyFile';

export const FLUSH_MS = 45_000;

export interface HistoryStoreOptions {
  readonly file: string;
  readonly recorder: HistoryRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly flushMs?: number;
  readonly maxBytes?: number;
}

export class HistoryStore {
  private timer: TimerHandle | null = null;
  private writing: Promise<void> = Promise.resolve();
  private disposed = false;
  /** A write waits for the file to be read first: otherwise an early close would replace it with this session only. */
  private loading: Promise<unknown> = Promise.resolve();
  private readonly unsubscribe: () => void;
  /** Writes so far (for tests and the bench). */
  writes = 0;

  constructor(private readonly options: HistoryStoreOptions) {
    this.unsubscribe = options.recorder.onDidRecord(() => this.schedule());
  }

  get file(): string {
    return this.options.file;
  }

  load(): Promise<LoadOutcome> {
    const loading = loadHistoryFile(this.options.file, this.options.recorder, this.options.logger, this.options.maxBytes);
    this.loading = loading.catch(() => undefined);
    return loading;
  }

  /** Writes now (after any write under way); the open stretches are allocated up to now first. */
  flush(): Promise<void> {
    if (this.timer) {
      this.options.clock.clearTimeout(this.timer);
      this.timer = null;
    }
    const next = this.writing.then(() => this.write());
    this.writing = next.catch(() => undefined);
    return next;
  }

  /** Resolves once no write is under way (a timer's write included). */
  settled(): Promise<void> {
    return this.writing;
  }

  /** Forgets every bucket and writes the empty history at once. */
  async clear(): Promise<void> {
    this.options.recorder.clear();
    await this.flush();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return this.writing;
    this.disposed = true;
    this.unsubscribe();
    await this.flush().catch(() => undefined);
  }

  private schedule(): void {
    if (this.timer || this.disposed) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = null;
      this.flush().catch(() => undefined);
    }, this.options.flushMs ?? FLUSH_MS);
  }

  private async write(): Promise<void> {
    await this.loading;
    const { recorder, clock, logger, file } = this.options;
    recorder.settle();
    const { text, pruned } = await encodeWithinCapSliced(
      recorder,
      clock.wall(),
      yieldToEventLoop,
      this.options.maxBytes ?? HISTORY_MAX_BYTES,
    );
    if (pruned > 0) logger.info(`history: ${file} reached its size cap; ${pruned} of the oldest buckets dropped`);
    try {
      await writeFileAtomic(file, text);
      this.writes += 1;
    } catch (error) {
      logger.warn(`history: could not write ${file} (${(error as Error).message})`);
      throw error;
    }
  }
}

/** Lets the extension host serve other work (views, other extensions) between slices of a large history's encoding. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
