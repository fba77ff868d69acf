// The ConfigFileSystem discovery reads through, backed by node:fs. Read-only by construction: no write call exists here.

import { readdir, readFile, stat } from 'node:fs/promises';
import type { ConfigFileSystem } from '../core/config/types';

/** A config file this big is a mistake or an attack; refusing it keeps the editor responsive. */
export const MAX_CONFIG_FILE_BYTES = 20 * 1024 * 1024;

const ABSENT = new Set(['ENOENT', 'ENOTDIR']);

export function createNodeFileSystem(maxBytes: number = MAX_CONFIG_FILE_BYTES): ConfigFileSystem {
  return {
    async readFile(path: string): Promise<string | undefined> {
      try {
        const info = await stat(path);
        if (info.isDirectory()) throw new Error('is a folder, not a file');
        if (info.size > maxBytes) {
          throw new Error(`file is ${formatSize(info.size)}, over the ${formatSize(maxBytes)} limit; not read`);
        }
        return await readFile(path, 'utf8');
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

function formatSize(bytes: number): string {
  const megabytes = bytes / (1024 * 1024);
  return megabytes >= 1 ? `${Number(megabytes.toFixed(1))} MB` : `${bytes} bytes`;
}
