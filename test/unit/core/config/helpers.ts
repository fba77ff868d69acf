// Shared test helpers: an in-memory file system, fixture loading and a default parse context.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigFileSystem, DiscoveryOptions, ParseContext } from '../../../../src/core/config/types';
import type { ConfigDiagnostic } from '../../../../src/core/model';

export const FIXTURES = join(__dirname, '..', '..', '..', 'fixtures', 'configs');

export function fixture(relative: string): string {
  return readFileSync(join(FIXTURES, relative), 'utf8');
}

export interface MemoryFileSystem extends ConfigFileSystem {
  /** Every path asked for, in order; lets tests prove a file was (not) read. */
  readonly reads: string[];
}

/** Files by absolute path; a value that is an Error is thrown on read. Folders are implied by the paths. */
export function memoryFs(files: Readonly<Record<string, string | Error>>): MemoryFileSystem {
  const reads: string[] = [];
  return {
    reads,
    readFile(path) {
      reads.push(path);
      const content = files[path];
      if (content instanceof Error) return Promise.reject(content);
      return Promise.resolve(content);
    },
    readDir(path) {
      reads.push(path);
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = Object.keys(files)
        .filter((file) => file.startsWith(prefix))
        .map((file) => file.slice(prefix.length))
        .filter((rest) => rest.length > 0 && !rest.includes('/'));
      return Promise.resolve(names.length > 0 ? names : undefined);
    },
  };
}

export function parseContext(overrides: Partial<ParseContext> = {}): ParseContext {
  return {
    scope: 'workspace',
    folder: '/work/proj',
    workspaceFolders: ['/work/proj'],
    userHome: '/home/u',
    platform: 'linux',
    env: {},
    ...overrides,
  };
}

export function discoveryOptions(overrides: Partial<DiscoveryOptions> = {}): DiscoveryOptions {
  return {
    workspaceFolders: ['/work/proj'],
    userHome: '/home/u',
    platform: 'linux',
    env: {},
    includeUser: true,
    ...overrides,
  };
}

/** `line:column severity [server] message` — compact enough to compare whole lists at once. */
export function brief(diagnostics: readonly ConfigDiagnostic[]): string[] {
  return diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.severity}${d.serverName !== undefined ? ` [${d.serverName}]` : ''} ${d.message}`,
  );
}
