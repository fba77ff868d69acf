// How each client spells a server: which `type` values it knows, where the URL lives, what else it reads.

import type { ConfigFormat, TransportKind } from '../model';

export interface Dialect {
  /** Accepted `type` values (keys read in order: the first present wins). */
  readonly typeKeys: readonly string[];
  readonly typeValues: Readonly<Record<string, TransportKind>>;
  /** Transport of a server that has a URL but no `type`. */
  readonly defaultRemote: 'http' | 'sse';
  /** URL keys in order of preference; a key may imply its transport (Gemini `httpUrl` vs `url`). */
  readonly urlKeys: readonly { readonly key: string; readonly transport?: TransportKind }[];
  readonly headersKey: string;
  /** Where the child's environment is (opencode calls it `environment`). */
  readonly envKey: string;
  readonly hasEnvFile: boolean;
  /** VS Code's `sandboxEnabled` / `sandbox` keys (src/core/config/sandboxBlock.ts). */
  readonly hasSandbox?: boolean;
  readonly disabledKey?: 'disabled' | 'enabled';
  /** Where a stdio server runs when `cwd` is not given. */
  readonly defaultCwd: 'folder' | 'home' | 'none';
}

const STANDARD_TYPES = { stdio: 'stdio', http: 'http', sse: 'sse' } as const;

const base: Dialect = {
  typeKeys: ['type'],
  typeValues: STANDARD_TYPES,
  defaultRemote: 'http',
  urlKeys: [{ key: 'url' }],
  headersKey: 'headers',
  envKey: 'env',
  hasEnvFile: false,
  defaultCwd: 'folder',
};

export const DIALECTS: Readonly<Record<ConfigFormat, Dialect>> = {
  vscode: { ...base, hasEnvFile: true, hasSandbox: true },
  'vscode-settings': { ...base, hasEnvFile: true, hasSandbox: true },
  'mcp-json': base,
  'claude-code': base,
  // Cursor has no `type`; a URL is tried as Streamable HTTP first, with the connector's SSE fallback.
  cursor: base,
  'claude-desktop': { ...base, defaultCwd: 'home' },
  windsurf: { ...base, urlKeys: [{ key: 'serverUrl' }, { key: 'url' }], disabledKey: 'disabled' },
  // Cline and Roo began with SSE only, so an untyped URL there is SSE.
  cline: {
    ...base,
    typeKeys: ['type', 'transportType'],
    typeValues: { stdio: 'stdio', streamableHttp: 'http', sse: 'sse' },
    defaultRemote: 'sse',
    disabledKey: 'disabled',
  },
  roo: {
    ...base,
    typeValues: { stdio: 'stdio', 'streamable-http': 'http', sse: 'sse' },
    defaultRemote: 'sse',
    disabledKey: 'disabled',
  },
  gemini: {
    ...base,
    urlKeys: [
      { key: 'httpUrl', transport: 'http' },
      { key: 'url', transport: 'sse' },
    ],
  },
  codex: { ...base, typeKeys: [], typeValues: {}, headersKey: 'http_headers', disabledKey: 'enabled' },
  continue: {
    ...base,
    typeValues: { stdio: 'stdio', sse: 'sse', 'streamable-http': 'http', streamableHttp: 'http', http: 'http' },
  },
  zed: { ...base, typeKeys: [], typeValues: {} },
  // Kiro documents no `type`: a command is stdio, a url is tried as Streamable HTTP (the connector falls back to SSE).
  kiro: { ...base, disabledKey: 'disabled' },
  // opencode: `type` is required, `command` is an array (program and arguments), `enabled` (v1) or `disabled` (v2);
  // a remote url is tried as Streamable HTTP, then SSE, as opencode does.
  opencode: {
    ...base,
    typeValues: { local: 'stdio', remote: 'http' },
    envKey: 'environment',
    disabledKey: 'enabled',
  },
  // Copilot CLI writes `type: "local"` for stdio; `stdio`, `http` and `sse` are accepted too.
  'copilot-cli': { ...base, typeValues: { local: 'stdio', stdio: 'stdio', http: 'http', sse: 'sse' } },
  // Antigravity CLI reads `serverUrl` for remote servers (not Gemini CLI's `url`/`httpUrl`).
  antigravity: { ...base, urlKeys: [{ key: 'serverUrl' }] },
};
