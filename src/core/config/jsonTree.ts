// JSONC (comments and trailing commas, as VS Code reads its own files) into a ConfigNode tree with positions.

import { createScanner, parseTree, printParseErrorCode, SyntaxKind, type Node, type ParseError } from 'jsonc-parser';
import { sentenceFromCode, type DiagnosticSink } from './diagnosticSink';
import { LineIndex } from './lineIndex';
import { MAX_TREE_DEPTH, type ConfigNode, type ObjectEntry } from './tree';

/** jsonc-parser recurses per nesting level; refusing deeper input keeps a hostile file from overflowing the stack. */
const MAX_JSON_NESTING = 1000;

export function parseJsonc(text: string, sink: DiagnosticSink): ConfigNode | undefined {
  const lines = new LineIndex(text);
  const tooDeepAt = findExcessiveNesting(text);
  if (tooDeepAt !== undefined) {
    sink.error(lines.positionAt(tooDeepAt), `nesting deeper than ${MAX_JSON_NESTING} levels; file not read`);
    return undefined;
  }
  const errors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  } catch (error) {
    sink.error(lines.positionAt(0), `cannot parse: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  for (const error of errors) {
    sink.error(
      lines.positionAt(error.offset),
      `JSON syntax error: ${sentenceFromCode(printParseErrorCode(error.error))}`,
      undefined,
      lines.positionAt(error.offset + error.length),
    );
  }
  return root ? convert(root, lines, 0) : undefined;
}

function convert(node: Node, lines: LineIndex, depth: number): ConfigNode {
  const pos = lines.positionAt(node.offset);
  if (depth > MAX_TREE_DEPTH) return { kind: 'other', pos, description: 'a value nested too deeply' };
  switch (node.type) {
    case 'object': {
      const entries: ObjectEntry[] = [];
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (!keyNode || typeof keyNode.value !== 'string') continue;
        const keyPos = lines.positionAt(keyNode.offset);
        entries.push({
          key: keyNode.value,
          keyPos,
          // A property cut short by a syntax error has no value; it reads as null so type checks name it.
          value: valueNode ? convert(valueNode, lines, depth + 1) : { kind: 'null', pos: keyPos },
        });
      }
      return { kind: 'object', pos, entries };
    }
    case 'array':
      return { kind: 'array', pos, items: (node.children ?? []).map((child) => convert(child, lines, depth + 1)) };
    case 'string':
      return { kind: 'string', pos, value: String(node.value) };
    case 'number':
      return { kind: 'number', pos, value: Number(node.value) };
    case 'boolean':
      return { kind: 'boolean', pos, value: node.value === true };
    default:
      return { kind: 'null', pos };
  }
}

function findExcessiveNesting(text: string): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.OpenBraceToken || token === SyntaxKind.OpenBracketToken) {
      depth++;
      if (depth > MAX_JSON_NESTING) return scanner.getTokenOffset();
    } else if (token === SyntaxKind.CloseBraceToken || token === SyntaxKind.CloseBracketToken) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}
