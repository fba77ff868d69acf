// The text of a tool set for a before/after view: one pretty JSON document, tools sorted by name, keys in canonical
// order, so a diff shows what changed and nothing else.

import { canonicalJson } from './canonical';
import type { ToolsInventory } from './types';

export function toolsDocumentText(tools: ToolsInventory | null): string {
  if (!tools) return '[]\n';
  // Definitions too large to keep: the hashes still show which tool and which field changed.
  const entries: unknown[] = tools.definitions
    ? [...tools.definitions]
    : tools.tools.map((tool) => ({ name: tool.name, hash: tool.hash, fields: tool.fields }));
  entries.sort((a, b) => {
    const left = (a as { name: string }).name;
    const right = (b as { name: string }).name;
    return left < right ? -1 : left > right ? 1 : 0;
  });
  return JSON.stringify(JSON.parse(canonicalJson(entries)), null, 2) + '\n';
}

/** Total tools across servers, for clients that cap how many tools they pass to a model (VS Code: 128). */
export function totalTools(counts: readonly (number | null | undefined)[]): number {
  return counts.reduce<number>((sum, count) => sum + (count ?? 0), 0);
}
