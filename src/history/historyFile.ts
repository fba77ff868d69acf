// Reading the history file back, repairing what can be repaired: a file that is not ours, corrupt, of another
// version or far over its cap starts afresh (the old one is kept beside it as `.bad` for a bug report); unreadable
// entries are dropped; a file over its cap is pruned by the next write. Each case logs one line naming the file.

import { rename } from 'node:fs/promises';
import { HISTORY_MAX_BYTES, HistoryFormatError, parseHistory, type HistoryRecorder } from '../core/history';
import type { Logger } from '../core/logger';
import { readRegularFile, UnreadableFileError } from '../mcp/regularFile';

/** Beyond this many times the cap, the file is not even parsed: reading it would cost more than it is worth. */
const UNREADABLE_FACTOR = 4;

export type LoadOutcome = 'missing' | 'loaded' | 'repaired' | 'pruned' | 'started-afresh';

export async function loadHistoryFile(
  file: string,
  recorder: HistoryRecorder,
  logger: Logger,
  maxBytes = HISTORY_MAX_BYTES,
): Promise<LoadOutcome> {
  let text: string;
  try {
    // Through the one reader of foreign files: a FIFO or device named as the history file is refused, not read forever.
    text = await readRegularFile(file, maxBytes * UNREADABLE_FACTOR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    if (error instanceof UnreadableFileError && error.reason === 'too-large') {
      logger.warn(`history: ${file} is far over its ${maxBytes}-byte cap; starting afresh`);
      await setAside(file, logger);
      return 'started-afresh';
    }
    logger.warn(`history: cannot read ${file} (${(error as Error).message}); starting afresh`);
    return 'started-afresh';
  }
  const size = Buffer.byteLength(text, 'utf8');
  try {
    const parsed = parseHistory(text);
    recorder.load(parsed.servers, parsed.minuteFrom);
    if (parsed.skipped > 0) {
      logger.warn(`history: repaired ${file}: ${parsed.skipped} unreadable entr${parsed.skipped === 1 ? 'y' : 'ies'} dropped`);
      return 'repaired';
    }
    if (size > maxBytes) {
      logger.warn(`history: ${file} is ${size} bytes, over its ${maxBytes}-byte cap; the oldest detail is pruned on the next write`);
      return 'pruned';
    }
    return 'loaded';
  } catch (error) {
    if (!(error instanceof HistoryFormatError)) throw error;
    logger.warn(`history: ${file} is unusable (${error.message}); starting afresh`);
    await setAside(file, logger);
    return 'started-afresh';
  }
}

async function setAside(file: string, logger: Logger): Promise<void> {
  try {
    await rename(file, `${file}.bad`);
  } catch (error) {
    logger.warn(`history: could not move ${file} aside (${(error as Error).message}); it will be overwritten`);
  }
}
