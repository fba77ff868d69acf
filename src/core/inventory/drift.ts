// Compares a tool set with its accepted baseline: what was added, removed, and which fields of which tool changed.

import { TOOL_FIELDS, type ChangedTool, type ToolDrift, type ToolFingerprint, type ToolsInventory } from './types';

function byName(tools: readonly ToolFingerprint[]): Map<string, ToolFingerprint> {
  const map = new Map<string, ToolFingerprint>();
  for (const tool of tools) if (!map.has(tool.name)) map.set(tool.name, tool);
  return map;
}

/** Null when the sets are equal. */
export function diffTools(baseline: ToolsInventory, current: ToolsInventory): ToolDrift | null {
  if (baseline.hash === current.hash) return null;
  const before = byName(baseline.tools);
  const after = byName(current.tools);
  const added = [...after.keys()].filter((name) => !before.has(name)).sort();
  const removed = [...before.keys()].filter((name) => !after.has(name)).sort();
  const changed: ChangedTool[] = [];
  for (const [name, tool] of after) {
    const old = before.get(name);
    if (!old || old.hash === tool.hash) continue;
    changed.push({ name, fields: TOOL_FIELDS.filter((field) => old.fields[field] !== tool.fields[field]) });
  }
  changed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { added, removed, changed, baselineHash: baseline.hash, currentHash: current.hash };
}

/** One line for a log or a terminal: `added x; removed y; changed z (description)`. */
export function describeDrift(drift: ToolDrift): string {
  const parts: string[] = [];
  if (drift.added.length) parts.push(`added ${drift.added.join(', ')}`);
  if (drift.removed.length) parts.push(`removed ${drift.removed.join(', ')}`);
  if (drift.changed.length) {
    parts.push(`changed ${drift.changed.map((tool) => `${tool.name} (${tool.fields.join(', ') || 'name only'})`).join(', ')}`);
  }
  // Two tools with one name, one of them replaced: the sets differ though no name did.
  return parts.length ? parts.join('; ') : 'the tool set differs (duplicate tool names)';
}
