import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../../../src/core/config/discover';
import { locateServers } from '../../../../src/core/config/serverLocations';
import type { ConfigFormat } from '../../../../src/core/model';
import { parseContext } from './helpers';

const FILE = '/work/proj/config';

function places(text: string, format: ConfigFormat, file = FILE): Record<string, [number, number]> {
  const found = locateServers(text, file, format, parseContext());
  return Object.fromEntries([...found].map(([id, at]) => [id.slice(file.length + 1), [at.line, at.column]]));
}

void describe('locateServers (the places an unsaved buffer puts each server)', () => {
  void it('JSONC: every server at its key, by the id discovery gives it, a broken one at its diagnostic', () => {
    const text = [
      '{',
      '  // comment',
      '  "servers": {',
      '    "alpha": { "command": "node", "args": ["a.js"] },',
      '    "broken": { "args": [] },',
      '',
      '    "beta": { "type": "http", "url": "http://127.0.0.1:1/mcp" },',
      '  }',
      '}',
    ].join('\n');
    assert.deepEqual(places(text, 'vscode'), { alpha: [4, 5], beta: [7, 5], broken: [5, 5] });
    // The same places discovery itself reports for the loaded ones: one parser, not a second.
    const parsed = parseConfigText(text, FILE, 'vscode', parseContext());
    assert.deepEqual(
      parsed.servers.map((s) => [s.name, s.source.line, s.source.column]),
      [
        ['alpha', 4, 5],
        ['beta', 7, 5],
      ],
    );
  });

  void it('a name written twice keeps the #2 id of the registry', () => {
    const text = '{"mcpServers": {\n"a": {"command": "x"},\n"a": {"command": "y"}\n}}';
    assert.deepEqual(places(text, 'mcp-json'), { a: [2, 1], 'a#2': [3, 1] });
  });

  void it('TOML (Codex) through its key locator', () => {
    const text = [
      'model = "x"',
      '',
      '[mcp_servers.docs]',
      'command = "npx"',
      '',
      '[mcp_servers.search]',
      'url = "http://127.0.0.1:9/mcp"',
    ].join('\n');
    const found = places(text, 'codex', '/home/u/.codex/config.toml');
    assert.deepEqual(Object.keys(found).sort(), ['docs', 'search']);
    assert.equal(found.docs?.[0], 3);
    assert.equal(found.search?.[0], 6);
  });

  void it('YAML (Continue) list entries', () => {
    const text = ['name: blocks', 'mcpServers:', '  - name: first', '    command: node', '  - name: second', '    command: uvx'].join('\n');
    const found = places(text, 'continue', '/w/.continue/mcpServers/x.yaml');
    assert.deepEqual([found.first?.[0], found.second?.[0]], [3, 5]);
  });

  void it('half-typed JSONC keeps what it can read (the lens stays on its entry while typing); broken TOML locates nothing', () => {
    assert.deepEqual(places('{ "servers": { "a": ', 'vscode'), { a: [1, 16] });
    assert.deepEqual(places('[mcp_servers.a\ncommand=', 'codex'), {});
  });
});
