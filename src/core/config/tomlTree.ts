// TOML (Codex config.toml) into a ConfigNode tree; positions come from the key locator.

import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import type { DiagnosticSink } from './diagnosticSink';
import { FILE_START, type Position } from './lineIndex';
import { locateTomlKeys, pathKey, type KeyLocations } from './tomlKeyLocator';
import { MAX_TREE_DEPTH, type ConfigNode, type ObjectEntry } from './tree';

// smol-toml's types describe its ES module only; its package also ships the CommonJS build this project loads.
// Its members are read at the call, not here: the extension loads the parser from its own file on first use (esbuild.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const smolToml = require('smol-toml') as typeof SmolToml;

export function parseToml(text: string, sink: DiagnosticSink): ConfigNode | undefined {
  let value: unknown;
  try {
    value = smolToml.parse(text);
  } catch (error) {
    if (error instanceof smolToml.TomlError) {
      const message = error.message.split('\n')[0].replace(/^Invalid TOML document:\s*/, '');
      sink.error({ line: error.line, column: error.column }, `TOML error: ${message}`);
    } else {
      sink.error(FILE_START, `cannot parse TOML: ${error instanceof Error ? error.message : String(error)}`);
    }
    return undefined;
  }
  return convert(value, [], locateTomlKeys(text), FILE_START, 0);
}

function convert(value: unknown, path: string[], locations: KeyLocations, pos: Position, depth: number): ConfigNode {
  if (depth > MAX_TREE_DEPTH) return { kind: 'other', pos, description: 'a value nested too deeply' };
  if (typeof value === 'string') return { kind: 'string', pos, value };
  if (typeof value === 'number') return { kind: 'number', pos, value };
  if (typeof value === 'bigint') return { kind: 'number', pos, value: Number(value) };
  if (typeof value === 'boolean') return { kind: 'boolean', pos, value };
  if (Array.isArray(value)) {
    return { kind: 'array', pos, items: value.map((item) => convert(item, path, locations, pos, depth + 1)) };
  }
  if (value instanceof Date) return { kind: 'other', pos, description: 'a date' };
  if (value !== null && typeof value === 'object') {
    const entries: ObjectEntry[] = [];
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, key];
      const keyPos = locations.keys.get(pathKey(childPath)) ?? pos;
      const valuePos = locations.values.get(pathKey(childPath)) ?? keyPos;
      entries.push({ key, keyPos, value: convert(child, childPath, locations, valuePos, depth + 1) });
    }
    return { kind: 'object', pos, entries };
  }
  return { kind: 'null', pos };
}
