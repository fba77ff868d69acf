// Turns the tools a server listed into fingerprints: a hash per tool, per field, and for the whole set.

import { canonicalJson, hashOf, sha256 } from './canonical';
import { TOOL_FIELDS, type ToolDefinition, type ToolField, type ToolFingerprint, type ToolsInventory } from './types';

/** Keeps only the hashed fields of what the server sent; anything else (`_meta`, `title`, extensions) is not drift. */
export function toolDefinition(raw: unknown): ToolDefinition | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const source = raw as Record<string, unknown>;
  if (typeof source.name !== 'string') return null;
  const definition: Record<string, unknown> = { name: source.name };
  for (const field of TOOL_FIELDS) {
    if (source[field] !== undefined) definition[field] = source[field];
  }
  return definition as unknown as ToolDefinition;
}

export function fingerprintTool(definition: ToolDefinition): ToolFingerprint {
  const fields = {} as Record<ToolField, string>;
  for (const field of TOOL_FIELDS) fields[field] = hashOf(definition[field] ?? null);
  return { name: definition.name, hash: hashOf(definition), fields };
}

/** The set hash is independent of listing order: servers need not list tools in a stable order. */
export function setHash(tools: readonly Pick<ToolFingerprint, 'name' | 'hash'>[]): string {
  const lines = tools.map((tool) => `${JSON.stringify(tool.name)} ${tool.hash}`).sort();
  return sha256(lines.join('\n'));
}

export function toolsInventory(definitions: readonly ToolDefinition[], maxKeptChars: number): ToolsInventory {
  const tools = definitions.map(fingerprintTool);
  let size = 0;
  for (const definition of definitions) {
    size += canonicalJson(definition).length;
    if (size > maxKeptChars) break;
  }
  return { count: tools.length, hash: setHash(tools), tools, definitions: size > maxKeptChars ? null : definitions };
}
