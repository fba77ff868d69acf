// The ConfigFileSystem discovery reads through, backed by node:fs. Read-only by construction: no write call exists here.

import { readdir, stat } from 'node:fs/promises';
import type { ConfigFileSystem } from '../core/config/types';
import { MAX_CONFIG_FILE_BYTES, readRegularFile } from './regularFile';

export { MAX_CONFIG_FILE_BYTES };

const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

export function createNodeFileSystem(maxBytes: number = MAX_CONFIG_FILE_BYTES): ConfigFileSystem {
  return {
    async readFile(path: string, limit?: number): Promise<string | undefined> {
      try {
        // A FIFO or device behind the name is refused, not read: it would hang discovery or fill memory.
        return await readRegularFile(path, Math.min(maxBytes, limit ?? maxBytes));
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
    },
    async readDir(path: string): Promise<string[] | undefined> {
      try {
        const entries = await readdir(path, { withFileTypes: true });
        return entries.filter((entry) => entry.isFile() || entry.isSymbolicLink()).map((entry) => entry.name);
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
    },
    async exists(path: string): Promise<boolean> {
      try {
        await stat(path);
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** The shared instance with the default size cap. */
export const nodeFileSystem: ConfigFileSystem = createNodeFileSystem();

function isAbsent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && ABSENT.has(String((error as { code?: unknown }).code));
}
