// `mcp-health watch --history FILE`: appends each complete minute of every server as one JSON line, the same records
// "Export History…" writes. A minute is appended a minute after it ends, so a connection proven by its first probe
// a little later still has its up time in the record; what is under way is appended when the watch ends.

import { appendFile, mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock, TimerHandle } from '../core/clock';
import { ensureRegularFileForAppend } from '../mcp/regularFile';
import { closedMinuteRecords, floorToMinute, jsonLines, MINUTE_MS, type HistoryRecorder } from '../core/history';

export class HistoryAppender {
  private cursor: number;
  private timer: TimerHandle | null = null;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly file: string,
    private readonly recorder: HistoryRecorder,
    private readonly clock: Clock,
    private readonly onError: (message: string) => void,
  ) {
    this.cursor = floorToMinute(clock.wall());
  }

  async start(): Promise<void> {
    // Fail early (a directory that cannot be created, a read-only file) rather than a minute into the watch.
    await mkdir(path.dirname(path.resolve(this.file)), { recursive: true });
    // A FIFO or device named as the history file would block the first append forever: refused here instead.
    await ensureRegularFileForAppend(this.file);
    this.arm();
  }

  /** Resolves once the append under way (if any) is written. */
  settled(): Promise<void> {
    return this.writing;
  }

  /** Appends what is left, including the minute under way, and stops. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.writing;
    this.recorder.settle();
    await this.append(this.clock.wall() + MINUTE_MS);
  }

  private arm(): void {
    if (this.stopped) return;
    const now = this.clock.wall();
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = null;
        // The next minute is timed now, not after this write: a slow disk must not shift the schedule.
        this.arm();
        this.recorder.settle();
        const until = this.clock.wall() - MINUTE_MS;
        this.writing = this.writing.then(() => this.append(until));
      },
      floorToMinute(now) + MINUTE_MS - now + 1,
    );
  }

  private async append(until: number): Promise<void> {
    const records = closedMinuteRecords(this.recorder.servers(), this.cursor, until);
    if (records.length === 0) return;
    this.cursor = floorToMinute(until);
    try {
      await appendFile(this.file, jsonLines(records));
    } catch (error) {
      this.onError(`could not append to ${this.file}: ${(error as Error).message}`);
    }
  }
}
