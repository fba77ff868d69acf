// The one way MCP Health reads a file someone else put there (configs, envFiles, tool baselines, the history file).
// A path can name a FIFO, a device or a terminal (`.mcp.json -> /dev/zero`, `-> /proc/self/fd/0`): stat() says size 0
// for those, and reading them either never ends or never stops growing. So the file is opened without blocking, the
// opened descriptor (not the path, which could be swapped in between) is checked to be a regular file, and at most a
// stated number of bytes is read. Symlinks to regular files are followed: committed configs use them.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** Configs: far above any real one (the largest seen are a few hundred KB), small enough to keep the editor responsive. */
export const MAX_CONFIG_FILE_BYTES = 20 * 1024 * 1024;
/** Tool baselines (`--baseline`): a name and a hash per tool, a few KB per server. */
export const MAX_BASELINE_FILE_BYTES = 16 * 1024 * 1024;

/** The file is there but is not something MCP Health reads (a folder, FIFO, device, socket, or over the cap). */
export class UnreadableFileError extends Error {
  constructor(
    message: string,
    readonly reason: 'folder' | 'not-regular' | 'too-large',
  ) {
    super(message);
    this.name = 'UnreadableFileError';
  }
}

/** O_NONBLOCK keeps open() of a FIFO with no writer from waiting forever; Windows has neither FIFOs nor the flag. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const CHUNK_BYTES = 64 * 1024;

/**
 * The file's text (UTF-8). Rejects with UnreadableFileError for anything but a regular file of at most `maxBytes`
 * (checked on the opened descriptor, and again while reading, since a file can grow after fstat); with the usual
 * errno error (ENOENT, EACCES, ...) when it cannot be opened.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<string> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new UnreadableFileError('is a folder, not a file', 'folder');
    if (!info.isFile()) throw new UnreadableFileError(`is ${kindOf(info)}, not a regular file; not read`, 'not-regular');
    if (info.size > maxBytes) throw tooLarge(info.size, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    // One byte past the cap tells a file that grew after fstat from one that is exactly at it.
    for (;;) {
      const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(total, maxBytes, 'at least ');
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}

function tooLarge(bytes: number, maxBytes: number, atLeast = ''): UnreadableFileError {
  return new UnreadableFileError(`file is ${atLeast}${formatSize(bytes)}, over the ${formatSize(maxBytes)} limit; not read`, 'too-large');
}

function kindOf(info: { isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}

export function formatSize(bytes: number): string {
  const megabytes = bytes / (1024 * 1024);
  return megabytes >= 1 ? `${Number(megabytes.toFixed(1))} MB` : `${bytes} bytes`;
}

/**
 * Creates `path` if it is missing and checks that what is there is a regular file MCP Health may append to (the
 * history file). O_NONBLOCK again: opening a FIFO for writing would otherwise wait for a reader forever (with it,
 * ENXIO). Rejects with UnreadableFileError for a folder, FIFO or device.
 */
export async function ensureRegularFileForAppend(path: string): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NONBLOCK ?? 0), 0o600).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENXIO')
        throw new UnreadableFileError('is a FIFO (named pipe) or socket, not a regular file; not written', 'not-regular');
      throw error;
    },
  );
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new UnreadableFileError(`is ${kindOf(info)}, not a regular file; not written`, 'not-regular');
  } finally {
    await handle.close();
  }
}
