// One position-carrying value tree for JSONC, YAML and TOML, so every format's server rules are written once.

import type { Position } from './lineIndex';

export interface ObjectEntry {
  readonly key: string;
  readonly keyPos: Position;
  readonly value: ConfigNode;
}

export type ConfigNode =
  | { readonly kind: 'object'; readonly pos: Position; readonly entries: readonly ObjectEntry[] }
  | { readonly kind: 'array'; readonly pos: Position; readonly items: readonly ConfigNode[] }
  | { readonly kind: 'string'; readonly pos: Position; readonly value: string }
  | { readonly kind: 'number'; readonly pos: Position; readonly value: number }
  | { readonly kind: 'boolean'; readonly pos: Position; readonly value: boolean }
  | { readonly kind: 'null'; readonly pos: Position }
  /** Something a config file cannot sensibly hold here: nesting past the depth cap, a TOML date. */
  | { readonly kind: 'other'; readonly pos: Position; readonly description: string };

export type ObjectNode = Extract<ConfigNode, { kind: 'object' }>;
export type ArrayNode = Extract<ConfigNode, { kind: 'array' }>;

/** Deep enough for any real config; shallow enough that recursion over the tree can never exhaust the stack. */
export const MAX_TREE_DEPTH = 64;

/** The last entry wins, as in JSON.parse and in every client reading these files. */
export function getEntry(node: ConfigNode | undefined, key: string): ObjectEntry | undefined {
  if (node?.kind !== 'object') return undefined;
  for (let i = node.entries.length - 1; i >= 0; i--) {
    if (node.entries[i].key === key) return node.entries[i];
  }
  return undefined;
}

export function getValue(node: ConfigNode | undefined, key: string): ConfigNode | undefined {
  return getEntry(node, key)?.value;
}

export function getPath(node: ConfigNode | undefined, path: readonly string[]): ConfigNode | undefined {
  let current = node;
  for (const key of path) current = getValue(current, key);
  return current;
}

export function describeKind(node: ConfigNode): string {
  switch (node.kind) {
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'null':
      return 'null';
    case 'other':
      return node.description;
  }
}
