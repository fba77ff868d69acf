// Keeps a copy of the guard runtime where its path does not change with the extension's version: an entry written by
// "Guard This Server" names that copy, so it runs without a global install and keeps running after an update (the
// extension's own folder carries its version and is deleted by the update).

import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../core/logger';
import { localLauncher, STABLE_GUARD_FILE, type GuardLauncher } from '../core/guardLauncher';

export interface StableRuntime {
  /** Absolute path of the stable copy. */
  readonly file: string;
  /** Whether this call wrote it (first install, or the bundled file changed). */
  readonly written: boolean;
}

/**
 * Copies `bundled` to `<binDir>/mcp-health-guard.js` when the content differs (by hash); otherwise leaves it alone.
 * The new content goes to a temporary file in the same directory and is renamed over the old one, so a guard that is
 * starting reads either the old file or the new one, never half of one, and running guards keep the code they loaded.
 */
export async function installStableRuntime(bundled: string, binDir: string): Promise<StableRuntime> {
  const file = path.join(binDir, STABLE_GUARD_FILE);
  const content = await readFile(bundled);
  const current = await readFile(file).catch(() => undefined);
  if (current && digest(current) === digest(content)) return { file, written: false };
  await mkdir(binDir, { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temporary, content, { mode: 0o755 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return { file, written: true };
}

function digest(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Whether `command` (e.g. `node`) is found on `PATH` the way a client spawning it would look it up (PATHEXT on
 * Windows): the rewritten entry names it bare, so a client that cannot find it cannot start the guard.
 */
export async function findOnPath(
  command: string,
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): Promise<string | undefined> {
  const windows = platform === 'win32';
  const pathValue = (windows ? (env.Path ?? env.PATH) : env.PATH) ?? '';
  const extensions = windows ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [''];
  for (const dir of pathValue.split(path.delimiter).filter(Boolean)) {
    for (const extension of extensions) {
      const candidate = path.join(dir, command + extension);
      try {
        await access(candidate, windows ? constants.F_OK : constants.X_OK);
        return candidate;
      } catch {
        // not in this directory
      }
    }
  }
  return undefined;
}

/** The launcher "Guard This Server" writes, or why there is none (the command then refuses with that reason). */
export type StableLauncher = { readonly launcher: GuardLauncher } | { readonly error: string };

/**
 * Starts installing the stable copy at once, off the caller's path (activation must not wait for a file copy), and
 * hands the launcher over when asked. A failure is logged once and kept, never thrown: "Guard This Server" refuses with
 * it rather than writing an entry that cannot start.
 */
export class StableGuardRuntime {
  private readonly installed: Promise<StableLauncher>;

  constructor(bundled: string, binDir: string, logger: Logger) {
    this.installed = installStableRuntime(bundled, binDir).then(
      ({ file, written }) => {
        if (written) logger.info(`guard runtime copied to ${file}`);
        return { launcher: localLauncher(file) };
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        logger.warn(`could not copy the guard runtime to ${binDir}: ${reason}`);
        return { error: reason };
      },
    );
  }

  launcher(): Promise<StableLauncher> {
    return this.installed;
  }
}
