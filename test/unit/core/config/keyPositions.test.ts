// Where an entry's `env` and `args` keys are, in each syntax, so Open Config can go to the key a cause is about.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../../../src/core/config/discover';
import type { ConfigFormat } from '../../../../src/core/model';
import { parseContext } from './helpers';

function keysOf(text: string, file: string, format: ConfigFormat) {
  const { servers, diagnostics } = parseConfigText(text, file, format, parseContext());
  assert.deepEqual(
    diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return servers.map((server) => [server.name, server.source.keys]);
}

void describe('env and args key positions', () => {
  void it('JSON: both keys, one key, and none (remote servers have none)', () => {
    const text = [
      '{ "mcpServers": {',
      '  "stripe": {',
      '    "command": "npx",',
      '    "args": ["-y", "@stripe/mcp"],',
      '    "env": { "STRIPE_SECRET_KEY": "" } },',
      '  "bare": { "command": "node", "env": {} },',
      '  "none": { "command": "node" },',
      '  "remote": { "url": "https://example.test/mcp" } } }',
    ].join('\n');
    assert.deepEqual(keysOf(text, '/work/proj/.mcp.json', 'mcp-json'), [
      ['stripe', { args: { line: 4, column: 5 }, env: { line: 5, column: 5 } }],
      ['bare', { env: { line: 6, column: 32 } }],
      ['none', undefined],
      ['remote', undefined],
    ]);
  });

  void it('TOML (Codex): keys of a server table', () => {
    const text = [
      '[mcp_servers.stripe]',
      'command = "npx"',
      'args = ["-y", "@stripe/mcp"]',
      '',
      '[mcp_servers.stripe.env]',
      'STRIPE_SECRET_KEY = "x"',
    ].join('\n');
    assert.deepEqual(keysOf(text, '/work/proj/.codex/config.toml', 'codex'), [
      ['stripe', { args: { line: 3, column: 1 }, env: { line: 5, column: 1 } }],
    ]);
  });

  void it('YAML (Continue): keys of a list entry', () => {
    const text = [
      'name: tools',
      'mcpServers:',
      '  - name: stripe',
      '    command: npx',
      '    args: ["-y", "@stripe/mcp"]',
      '    env:',
      '      STRIPE_SECRET_KEY: x',
    ].join('\n');
    assert.deepEqual(keysOf(text, '/work/proj/.continue/mcpServers/tools.yaml', 'continue'), [
      ['stripe', { args: { line: 5, column: 5 }, env: { line: 6, column: 5 } }],
    ]);
  });
});
