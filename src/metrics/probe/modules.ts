// The `--modules` file of `mcp-health serve`: how a /probe request probes (timeout, headers, proxy, listing tools, the
// expected tool set), which targets may be probed at all, and how many probes may run at once. YAML, in the spirit of
// the blackbox exporter's modules. Secrets come from environment variables or files, read once here; the values are
// kept beside the module for redaction and never written anywhere.

import { parseDocument } from 'yaml';
import { parseAllowList, type AllowList } from './allowList';

export interface ProbeModule {
  readonly name: string;
  /** The whole probe (connect, handshake, ping, listing), ms. */
  readonly timeoutMs: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Every header value read from a secret (env, file): masked in anything the probe reports. */
  readonly secretValues: readonly string[];
  /** The HTTP(S) proxy for this module's targets (loopback is always reached directly); absent: the environment's. */
  readonly proxy?: string;
  readonly listTools: boolean;
  /** sha256 of the tool set (as `check --json` and baseline files show it); a different set fails the probe. */
  readonly expectedToolsHash?: string;
}

export interface ServeConfig {
  readonly modules: ReadonlyMap<string, ProbeModule>;
  /** null: every http(s) target may be probed. */
  readonly allow: AllowList | null;
  /** Probes running at once; a request over it is answered 503 at once, never queued. */
  readonly maxConcurrent: number;
}

export class ModulesError extends Error {}

export const DEFAULT_MODULE_NAME = 'default';
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
export const MAX_PROBE_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_CONCURRENT = 16;
export const MAX_CONCURRENT_LIMIT = 1_000;

export const DEFAULT_MODULE: ProbeModule = {
  name: DEFAULT_MODULE_NAME,
  timeoutMs: DEFAULT_PROBE_TIMEOUT_MS,
  headers: {},
  secretValues: [],
  listTools: true,
};

/** Without a --modules file: the default module, every http(s) target, the default bound. */
export const DEFAULT_SERVE_CONFIG: ServeConfig = {
  modules: new Map([[DEFAULT_MODULE_NAME, DEFAULT_MODULE]]),
  allow: null,
  maxConcurrent: DEFAULT_MAX_CONCURRENT,
};

export interface SecretSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads a secret file (the CLI: fs.readFileSync as UTF-8); throws when it cannot. */
  readonly readFile: (file: string) => string;
}

const MODULE_KEYS = new Set(['timeout', 'headers', 'proxy', 'list_tools', 'expected_tools_hash']);
const TOP_KEYS = new Set(['modules', 'allow', 'max_concurrent']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Parses the modules file; every mistake is a ModulesError naming the file and, where it can, the line and key. */
export function parseServeConfig(text: string, file: string, secrets: SecretSources): ServeConfig {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    throw new ModulesError(`${file}:${lineOf(text, error.pos[0])}: YAML error: ${error.message.split('\n')[0]}`);
  }
  const root: unknown = doc.toJS({ maxAliasCount: 100 }) ?? {};
  const where = (key: string) => `${file}: ${key}`;
  if (!isRecord(root)) throw new ModulesError(`${file}: expected a mapping with modules, allow, max_concurrent`);
  for (const key of Object.keys(root))
    if (!TOP_KEYS.has(key)) throw new ModulesError(`${where(key)}: unknown key (expected modules, allow, max_concurrent)`);
  const modules = new Map<string, ProbeModule>();
  const declared = root.modules ?? {};
  if (!isRecord(declared)) throw new ModulesError(`${where('modules')}: expected a mapping of module names`);
  for (const [name, body] of Object.entries(declared)) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name))
      throw new ModulesError(`${where(`modules.${name}`)}: a module name is letters, digits, _ . - (at most 64)`);
    modules.set(
      name,
      parseModule(name, body ?? {}, (key) => where(`modules.${name}${key ? `.${key}` : ''}`), secrets),
    );
  }
  if (!modules.has(DEFAULT_MODULE_NAME)) modules.set(DEFAULT_MODULE_NAME, DEFAULT_MODULE);
  let allow: AllowList | null = null;
  if (root.allow !== undefined && root.allow !== null) {
    if (!Array.isArray(root.allow) || !root.allow.every((entry) => typeof entry === 'string')) {
      throw new ModulesError(`${where('allow')}: expected a list of host names, IP addresses or CIDR ranges`);
    }
    const parsed = parseAllowList(root.allow as string[]);
    if (typeof parsed === 'string') throw new ModulesError(`${where('allow')}: ${parsed}`);
    allow = parsed;
  }
  const maxConcurrent = root.max_concurrent === undefined ? DEFAULT_MAX_CONCURRENT : root.max_concurrent;
  if (typeof maxConcurrent !== 'number' || !Number.isInteger(maxConcurrent) || maxConcurrent < 1 || maxConcurrent > MAX_CONCURRENT_LIMIT) {
    throw new ModulesError(`${where('max_concurrent')}: expected a whole number from 1 to ${MAX_CONCURRENT_LIMIT}`);
  }
  return { modules, allow, maxConcurrent };
}

function parseModule(name: string, body: unknown, where: (key?: string) => string, secrets: SecretSources): ProbeModule {
  if (!isRecord(body)) throw new ModulesError(`${where()}: expected a mapping`);
  for (const key of Object.keys(body)) {
    if (!MODULE_KEYS.has(key)) throw new ModulesError(`${where(key)}: unknown key (expected ${[...MODULE_KEYS].join(', ')})`);
  }
  const timeoutMs = body.timeout === undefined ? DEFAULT_PROBE_TIMEOUT_MS : parseDuration(body.timeout);
  if (timeoutMs === undefined || timeoutMs < 100 || timeoutMs > MAX_PROBE_TIMEOUT_MS) {
    throw new ModulesError(`${where('timeout')}: expected a duration from 100ms to ${MAX_PROBE_TIMEOUT_MS / 1000}s (e.g. 5s, 1500ms)`);
  }
  const headers: Record<string, string> = {};
  const secretValues: string[] = [];
  const declared = body.headers ?? {};
  if (!isRecord(declared)) throw new ModulesError(`${where('headers')}: expected a mapping of header names`);
  for (const [header, source] of Object.entries(declared)) {
    if (!HEADER_NAME.test(header)) throw new ModulesError(`${where(`headers.${header}`)}: not a valid header name`);
    const value = headerValue(source, where(`headers.${header}`), secrets);
    if (/[\r\n\0]/.test(value)) throw new ModulesError(`${where(`headers.${header}`)}: the value contains a line break or NUL`);
    headers[header] = value;
    if (value !== '') secretValues.push(value);
    if (isRecord(source) && source.prefix !== undefined) {
      const secret = value.slice(String(source.prefix).length);
      if (secret !== '') secretValues.push(secret);
    }
  }
  let proxy: string | undefined;
  if (body.proxy !== undefined) {
    if (typeof body.proxy !== 'string' || !/^https?:\/\//.test(body.proxy) || !URL.canParse(body.proxy)) {
      throw new ModulesError(`${where('proxy')}: expected an http:// or https:// proxy URL`);
    }
    proxy = body.proxy;
    const password = new URL(body.proxy).password;
    if (password) secretValues.push(decodeURIComponent(password));
  }
  if (body.list_tools !== undefined && typeof body.list_tools !== 'boolean')
    throw new ModulesError(`${where('list_tools')}: expected true or false`);
  const expected = body.expected_tools_hash;
  if (expected !== undefined && (typeof expected !== 'string' || !/^[0-9a-f]{64}$/i.test(expected))) {
    throw new ModulesError(`${where('expected_tools_hash')}: expected a sha256 in hex (64 characters, in quotes)`);
  }
  if (expected !== undefined && body.list_tools === false) {
    throw new ModulesError(`${where('expected_tools_hash')}: needs list_tools (the tools must be listed to be compared)`);
  }
  return {
    name,
    timeoutMs,
    headers,
    secretValues,
    ...(proxy ? { proxy } : {}),
    listTools: (body.list_tools as boolean | undefined) ?? true,
    ...(typeof expected === 'string' ? { expectedToolsHash: expected.toLowerCase() } : {}),
  };
}

/** A header's value: a literal string, `{env: NAME}` or `{file: PATH}`, each with an optional `prefix` ("Bearer "). */
function headerValue(source: unknown, where: string, secrets: SecretSources): string {
  if (typeof source === 'string') return source;
  if (!isRecord(source)) throw new ModulesError(`${where}: expected a string, {env: NAME} or {file: PATH}`);
  for (const key of Object.keys(source)) {
    if (key !== 'env' && key !== 'file' && key !== 'prefix')
      throw new ModulesError(`${where}.${key}: unknown key (expected env, file, prefix)`);
  }
  if (source.prefix !== undefined && typeof source.prefix !== 'string') throw new ModulesError(`${where}.prefix: expected a string`);
  const prefix = (source.prefix as string | undefined) ?? '';
  if ((source.env === undefined) === (source.file === undefined)) throw new ModulesError(`${where}: give exactly one of env or file`);
  if (source.env !== undefined) {
    if (typeof source.env !== 'string' || source.env === '') throw new ModulesError(`${where}.env: expected a variable name`);
    const value = secrets.env[source.env];
    if (value === undefined || value === '') throw new ModulesError(`${where}.env: the environment variable ${source.env} is not set`);
    return prefix + value;
  }
  if (typeof source.file !== 'string' || source.file === '') throw new ModulesError(`${where}.file: expected a file name`);
  let content: string;
  try {
    content = secrets.readFile(source.file);
  } catch (error) {
    throw new ModulesError(
      `${where}.file: cannot read ${source.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  // A secret file ends with a newline more often than not; the header must not.
  const value = content.replace(/\r?\n$/, '');
  if (value === '') throw new ModulesError(`${where}.file: ${source.file} is empty`);
  return prefix + value;
}

/** `5s`, `1500ms`, `1m`, or a bare number of seconds, as the blackbox exporter writes timeouts. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  return Math.round(match[2] === 'ms' ? amount : match[2] === 's' ? amount * 1000 : amount * 60_000);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}
