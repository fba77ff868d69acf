// YAML (Continue's mcpServers blocks) into a ConfigNode tree with positions.

import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import type { DiagnosticSink } from './diagnosticSink';
import { FILE_START, LineIndex } from './lineIndex';
import { MAX_TREE_DEPTH, type ConfigNode, type ObjectEntry } from './tree';

/** Aliases can expand a small file exponentially ("billion laughs"); past this many nodes the rest is cut off. */
const MAX_NODES = 200_000;

export function parseYaml(text: string, sink: DiagnosticSink): ConfigNode | undefined {
  const lines = new LineIndex(text);
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { prettyErrors: false });
  } catch (error) {
    sink.error(FILE_START, `cannot parse YAML: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  for (const error of doc.errors) {
    const [start, end] = error.pos;
    sink.error(lines.positionAt(start), `YAML error: ${firstLine(error.message)}`, undefined, lines.positionAt(end));
  }
  if (doc.errors.length > 0) return undefined;
  const budget = { nodes: 0, truncated: false };
  const root = doc.contents ? convert(doc.contents as YamlNode, doc, lines, 0, budget) : undefined;
  if (budget.truncated) sink.error(FILE_START, `more than ${MAX_NODES} values (alias expansion?); the rest is ignored`);
  return root;
}

function convert(
  node: YamlNode,
  doc: Document.Parsed,
  lines: LineIndex,
  depth: number,
  budget: { nodes: number; truncated: boolean },
): ConfigNode {
  const pos = lines.positionAt(node.range?.[0] ?? 0);
  budget.nodes++;
  if (budget.nodes > MAX_NODES) {
    budget.truncated = true;
    return { kind: 'other', pos, description: 'a value past the size limit' };
  }
  if (depth > MAX_TREE_DEPTH) return { kind: 'other', pos, description: 'a value nested too deeply' };
  if (isAlias(node)) {
    const target = node.resolve(doc);
    return target ? convert(target, doc, lines, depth + 1, budget) : { kind: 'null', pos };
  }
  if (isMap(node)) {
    const entries: ObjectEntry[] = [];
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      const keyPos = keyNode?.range ? lines.positionAt(keyNode.range[0]) : pos;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode ?? '');
      const value = pair.value ? convert(pair.value as YamlNode, doc, lines, depth + 1, budget) : { kind: 'null' as const, pos: keyPos };
      entries.push({ key, keyPos, value });
    }
    return { kind: 'object', pos, entries };
  }
  if (isSeq(node)) {
    const items: ConfigNode[] = [];
    for (const item of node.items) {
      items.push(item ? convert(item as YamlNode, doc, lines, depth + 1, budget) : { kind: 'null', pos });
    }
    return { kind: 'array', pos, items };
  }
  if (isScalar(node)) {
    const value: unknown = node.value;
    if (typeof value === 'string') return { kind: 'string', pos, value };
    if (typeof value === 'number') return { kind: 'number', pos, value };
    if (typeof value === 'bigint') return { kind: 'number', pos, value: Number(value) };
    if (typeof value === 'boolean') return { kind: 'boolean', pos, value };
    if (value === null || value === undefined) return { kind: 'null', pos };
    return { kind: 'other', pos, description: `a ${typeof value} value` };
  }
  return { kind: 'other', pos, description: 'an unsupported YAML node' };
}

function firstLine(message: string): string {
  return message.split('\n')[0];
}
