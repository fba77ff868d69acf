// The baseline document `check --save-baseline` writes and `check --baseline` reads: per server name, the tool set
// with each tool's hashes and, when it was small enough to keep, its definition, so a reviewer can read it in a diff.

import { fingerprintTool, setHash } from './fingerprint';
import { TOOL_FIELDS, type ToolDefinition, type ToolField, type ToolFingerprint, type ToolsBaseline } from './types';

export const BASELINE_FORMAT = 'mcp-health-baseline';
export const BASELINE_VERSION = 1;

export interface BaselineDocument {
  readonly format: typeof BASELINE_FORMAT;
  readonly version: typeof BASELINE_VERSION;
  readonly savedAt: string;
  readonly servers: Readonly<Record<string, { readonly tools: BaselineTools }>>;
}

interface BaselineTools {
  readonly count: number;
  readonly hash: string;
  readonly items: readonly BaselineTool[];
}

interface BaselineTool {
  readonly name: string;
  readonly hash: string;
  readonly fields: Readonly<Record<ToolField, string>>;
  readonly definition?: ToolDefinition;
}

export class BaselineFormatError extends Error {}

export function baselineDocument(servers: ReadonlyMap<string, ToolsBaseline>, savedAt: Date): BaselineDocument {
  // No prototype: a server named "__proto__" is an entry like any other, not the object's prototype.
  const entries = Object.create(null) as Record<string, { tools: BaselineTools }>;
  for (const [name, tools] of [...servers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const items = tools.tools.map((tool, index): BaselineTool => ({
      name: tool.name,
      hash: tool.hash,
      fields: tool.fields,
      ...(tools.definitions?.[index] ? { definition: tools.definitions[index] } : {}),
    }));
    entries[name] = { tools: { count: tools.count, hash: tools.hash, items } };
  }
  return { format: BASELINE_FORMAT, version: BASELINE_VERSION, savedAt: savedAt.toISOString(), servers: entries };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A tool read from a file: its definition wins over the hashes beside it, so an edited description is honoured. */
function readTool(raw: unknown, where: string): { fingerprint: ToolFingerprint; definition: ToolDefinition | null } {
  if (!isRecord(raw) || typeof raw.name !== 'string') throw new BaselineFormatError(`${where}: a tool needs a "name"`);
  if (isRecord(raw.definition)) {
    const definition = { ...raw.definition, name: raw.name } as ToolDefinition;
    return { fingerprint: fingerprintTool(definition), definition };
  }
  const fields = raw.fields;
  if (typeof raw.hash !== 'string' || !isRecord(fields) || !TOOL_FIELDS.every((field) => typeof fields[field] === 'string')) {
    throw new BaselineFormatError(`${where}: tool "${raw.name}" needs a "definition" or its "hash" and "fields"`);
  }
  return { fingerprint: { name: raw.name, hash: raw.hash, fields: fields as Record<ToolField, string> }, definition: null };
}

/** Reads a baseline document; throws BaselineFormatError with the place of the first problem. */
export function parseBaselineDocument(text: string): Map<string, ToolsBaseline> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BaselineFormatError(`not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(parsed) || parsed.format !== BASELINE_FORMAT) throw new BaselineFormatError(`not an ${BASELINE_FORMAT} document`);
  if (parsed.version !== BASELINE_VERSION)
    throw new BaselineFormatError(`version ${String(parsed.version)} is not supported (expected ${BASELINE_VERSION})`);
  if (!isRecord(parsed.servers)) throw new BaselineFormatError('"servers" must be an object');
  const result = new Map<string, ToolsBaseline>();
  for (const [name, entry] of Object.entries(parsed.servers)) {
    const items = isRecord(entry) && isRecord(entry.tools) ? entry.tools.items : undefined;
    if (!Array.isArray(items)) throw new BaselineFormatError(`servers.${name}: "tools.items" must be an array`);
    const read = items.map((item, index) => readTool(item, `servers.${name}.tools.items[${index}]`));
    const tools = read.map((entryRead) => entryRead.fingerprint);
    const definitions = read.every((entryRead) => entryRead.definition !== null)
      ? read.map((entryRead) => entryRead.definition as ToolDefinition)
      : null;
    result.set(name, { count: tools.length, hash: setHash(tools), tools, definitions });
  }
  return result;
}
