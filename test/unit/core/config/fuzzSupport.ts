// Shared pieces of the discovery fuzzers: a read-only in-memory file system that proves nothing was written, and the
// invariants every parse must keep.

import assert from 'node:assert/strict';
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import type { ConfigFileSystem, DiscoveryOptions, ParseContext } from '../../../../src/core/config/types';
import type { ConfigDiagnostic, ConfigFormat, ServerConfig } from '../../../../src/core/model';

export const FORMATS: readonly ConfigFormat[] = [
  'vscode',
  'vscode-settings',
  'mcp-json',
  'claude-code',
  'cursor',
  'claude-desktop',
  'windsurf',
  'cline',
  'roo',
  'gemini',
  'codex',
  'continue',
  'zed',
  'kiro',
  'opencode',
  'copilot-cli',
  'antigravity',
];

export const FOLDER = '/work/proj';
export const HOME = '/home/u';

/** The file each format is read from in the fuzzers; Continue's YAML file is named so the YAML parser runs. */
export function fileFor(format: ConfigFormat): string {
  if (format === 'codex') return `${FOLDER}/.codex/config.toml`;
  if (format === 'continue') return `${FOLDER}/.continue/mcpServers/fuzz.yaml`;
  return `${FOLDER}/config.json`;
}

export function context(overrides: Partial<ParseContext> = {}): ParseContext {
  return {
    scope: 'workspace',
    folder: FOLDER,
    workspaceFolders: [FOLDER],
    userHome: HOME,
    platform: 'linux',
    env: { HOME, A: '1' },
    ...overrides,
  };
}

export function discoveryOptions(overrides: Partial<DiscoveryOptions> = {}): DiscoveryOptions {
  return { workspaceFolders: [FOLDER], userHome: HOME, platform: 'linux', env: { HOME }, includeUser: true, ...overrides };
}

export interface ReadOnlyFs extends ConfigFileSystem {
  /** Throws unless the files are exactly as given: nothing written, renamed or deleted through any path. */
  assertUntouched(): void;
}

/**
 * Files by absolute path. The interface discovery receives has no write method at all; the backing map is frozen and
 * compared afterwards, so not even a cast-and-mutate could go unnoticed.
 */
export function readOnlyFs(files: Record<string, string>): ReadOnlyFs {
  const frozen = Object.freeze({ ...files });
  const snapshot = JSON.stringify(frozen);
  const fs: ConfigFileSystem = {
    readFile: (path) => Promise.resolve(Object.prototype.hasOwnProperty.call(frozen, path) ? frozen[path] : undefined),
    readDir: (path) => {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const names = Object.keys(frozen)
        .filter((f) => f.startsWith(prefix))
        .map((f) => f.slice(prefix.length))
        .filter((rest) => rest.length > 0 && !rest.includes('/'));
      return Promise.resolve(names.length > 0 ? names : undefined);
    },
  };
  return {
    ...Object.freeze(fs),
    assertUntouched() {
      assert.deepEqual(Object.keys(fs).sort(), ['readDir', 'readFile'], 'the file system handed to discovery grew a method');
      assert.equal(JSON.stringify(frozen), snapshot, 'a config file changed');
    },
  };
}

export function assertPlaced(diagnostics: readonly ConfigDiagnostic[], knownFiles?: ReadonlySet<string>): void {
  for (const d of diagnostics) {
    const where = JSON.stringify(d);
    assert.ok(typeof d.file === 'string' && d.file.length > 0, `diagnostic without a file: ${where}`);
    if (knownFiles) assert.ok(knownFiles.has(d.file), `diagnostic names a file that was never read: ${where}`);
    assert.ok(Number.isInteger(d.line) && d.line >= 1, `line: ${where}`);
    assert.ok(Number.isInteger(d.column) && d.column >= 1, `column: ${where}`);
    assert.ok(typeof d.message === 'string' && d.message.trim().length > 0, `message: ${where}`);
    assert.ok(d.severity === 'error' || d.severity === 'warning', `severity: ${where}`);
  }
}

export function assertServersWellFormed(servers: readonly ServerConfig[]): void {
  for (const server of servers) {
    assert.ok(server.source.line >= 1 && server.source.column >= 1, `server place: ${server.id}`);
    assert.ok(
      server.transport === 'stdio' ? typeof server.command === 'string' : typeof server.url === 'string',
      `server target: ${server.id}`,
    );
    assert.ok(server.id.startsWith(server.source.file), `server id: ${server.id}`);
  }
}

// smol-toml's types describe its ES module only; its package also ships the CommonJS build this project loads.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const tomlStringify = (require('smol-toml') as typeof SmolToml).stringify;
