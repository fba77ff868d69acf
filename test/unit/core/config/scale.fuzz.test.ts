// Scale: 10,000 servers in one file in every syntax, and a 10 MB file, parsed without loss. The time each takes is
// reported, not asserted: the unit tier has no wall-clock limits (speed belongs in bench/).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify as yamlStringify } from 'yaml';
import { discover, parseConfigText } from '../../../../src/core/config/discover';
import type { ConfigFormat } from '../../../../src/core/model';
import { assertPlaced, context, discoveryOptions, fileFor, FOLDER, readOnlyFs, tomlStringify } from './fuzzSupport';

const COUNT = 10_000;

function manyServers(): Record<string, { command: string; args: string[]; env: Record<string, string> }> {
  return Object.fromEntries(
    Array.from({ length: COUNT }, (_, i) => [
      `s${i}`,
      { command: 'node', args: [`server-${i}.js`], env: { API_TOKEN: `tok-${i}-secret` } },
    ]),
  );
}

function timedParse(text: string, format: ConfigFormat) {
  const started = performance.now();
  const output = parseConfigText(text, fileFor(format), format, context());
  const elapsed = performance.now() - started;
  assertPlaced(output.diagnostics);
  return { output, elapsed };
}

void describe('scale', () => {
  const servers = manyServers();
  const documents: Array<[ConfigFormat, string]> = [
    ['vscode', JSON.stringify({ servers }, null, 2)],
    ['claude-desktop', JSON.stringify({ mcpServers: servers }, null, 1)],
    ['zed', JSON.stringify({ context_servers: servers }, null, '\t')],
    ['codex', tomlStringify({ mcp_servers: servers })],
    ['continue', yamlStringify({ mcpServers: Object.entries(servers).map(([name, entry]) => ({ name, ...entry })) })],
  ];
  for (const [format, text] of documents) {
    void it(`${COUNT} servers in one ${format} file all come through, each with its own line`, (t) => {
      const { output, elapsed } = timedParse(text, format);
      t.diagnostic(`${format}: ${(text.length / 1048576).toFixed(1)} MB, ${Math.round(elapsed)} ms`);
      assert.equal(output.servers.length, COUNT);
      assert.equal(new Set(output.servers.map((s) => s.id)).size, COUNT);
      assert.equal(new Set(output.servers.map((s) => s.source.line)).size, COUNT, 'every server placed on its own line');
      assert.ok(
        output.servers.every((s) => s.secretValues?.length === 1),
        'every token known as a secret',
      );
    });
  }

  void it('a 10 MB file (one huge value among ordinary servers) is parsed, through discover too', async (t) => {
    const blob = 'x'.repeat(10 * 1024 * 1024);
    const text = JSON.stringify({ servers: { huge: { command: 'node', args: [blob] }, small: { command: 'node' } } });
    const { output, elapsed } = timedParse(text, 'vscode');
    t.diagnostic(`10 MB JSON parsed in ${Math.round(elapsed)} ms`);
    assert.deepEqual(
      output.servers.map((s) => s.name),
      ['huge', 'small'],
    );
    const fs = readOnlyFs({
      [`${FOLDER}/.vscode/mcp.json`]: text,
      [`${FOLDER}/.mcp.json`]: JSON.stringify({ mcpServers: { other: { command: 'x' } } }),
    });
    const result = await discover(discoveryOptions(), fs);
    assert.deepEqual(result.servers.map((s) => s.name).sort(), ['huge', 'other', 'small']);
    fs.assertUntouched();
  });
});
