import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseConfigText } from '../../../../src/core/config/discover';
import type { ConfigFormat } from '../../../../src/core/model';
import { parseContext } from './helpers';

const FORMATS: ConfigFormat[] = [
  'vscode',
  'vscode-settings',
  'mcp-json',
  'claude-code',
  'cursor',
  'claude-desktop',
  'windsurf',
  'cline',
  'roo',
  'gemini',
  'codex',
  'continue',
  'zed',
];
const FILE_FOR: Partial<Record<ConfigFormat, string>> = { codex: '/w/.codex/config.toml', continue: '/w/.continue/mcpServers/x.yaml' };

function assertWellFormed(text: string, format: ConfigFormat): void {
  const output = parseConfigText(text, FILE_FOR[format] ?? '/w/config.json', format, parseContext({ env: { A: '1' }, inputs: { i: 'v' } }));
  for (const diagnostic of output.diagnostics) {
    assert.ok(Number.isInteger(diagnostic.line) && diagnostic.line >= 1, `line ${diagnostic.line}`);
    assert.ok(Number.isInteger(diagnostic.column) && diagnostic.column >= 1, `column ${diagnostic.column}`);
    assert.ok(diagnostic.message.length > 0);
  }
  for (const server of output.servers) {
    assert.ok(server.source.line >= 1 && server.source.column >= 1);
    assert.ok(server.transport === 'stdio' ? typeof server.command === 'string' : typeof server.url === 'string');
  }
}

/** Server-shaped values with wrong types sprinkled in, so the checks past the parser get exercised too. */
const serverLike = fc.record(
  {
    type: fc.oneof(fc.constantFrom('stdio', 'http', 'sse', 'streamableHttp', 'streamable-http', 'ws'), fc.anything()),
    command: fc.oneof(fc.string(), fc.constant('${input:i}'), fc.anything()),
    args: fc.oneof(fc.array(fc.string()), fc.array(fc.jsonValue()), fc.anything()),
    env: fc.oneof(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(null))), fc.anything()),
    url: fc.oneof(fc.webUrl(), fc.string(), fc.constant('https://${env:A}/x'), fc.anything()),
    headers: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.anything()),
  },
  { requiredKeys: [] },
);

void describe('parseConfigText under random input', () => {
  void it('never throws on random text, and every diagnostic has a place', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.constantFrom(...FORMATS), (text, format) => {
        assertWellFormed(text, format);
      }),
      { numRuns: 600 },
    );
  });

  void it('never throws on random JSON values in every root key', () => {
    const root = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.constantFrom('servers', 'mcpServers', 'context_servers', 'mcp', 'inputs', 'projects'), fc.jsonValue()),
    );
    fc.assert(
      fc.property(root, fc.constantFrom(...FORMATS.filter((f) => f !== 'codex')), (value, format) => {
        assertWellFormed(JSON.stringify(value, null, 1) ?? '', format);
      }),
      { numRuns: 400 },
    );
  });

  void it('never throws on server maps with wrong types, and drops only the broken servers', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), serverLike, { maxKeys: 5 }), (servers) => {
        const text = JSON.stringify({ servers, mcpServers: servers });
        assertWellFormed(text, 'vscode');
        assertWellFormed(text, 'cline');
        const output = parseConfigText(text, '/w/.mcp.json', 'mcp-json', parseContext());
        const failed = new Set(output.diagnostics.filter((d) => d.severity === 'error').map((d) => d.serverName));
        for (const server of output.servers) assert.ok(!failed.has(server.name), `server ${server.name} returned despite an error`);
      }),
      { numRuns: 300 },
    );
  });

  void it('survives hostile nesting in every syntax', () => {
    const deep = 200_000;
    for (const [text, format] of [
      ['['.repeat(deep), 'vscode'],
      [`{"servers": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`, 'vscode'],
      [`a = ${'['.repeat(deep)}`, 'codex'],
      [`${'- '.repeat(5000)}x`, 'continue'],
      ['a: &a [*a, *a]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nmcpServers: [*c, *c, *c, *c]', 'continue'],
    ] as Array<[string, ConfigFormat]>) {
      assertWellFormed(text, format);
    }
  });
});
