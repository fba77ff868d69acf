import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { guardEntry } from '../../../src/core/config/guardRewrite';
import { parseConfigText } from '../../../src/core/config/discover';
import { isGuardable, isGuarded } from '../../../src/present/guardState';
import { parseContext } from '../core/config/helpers';

describe('guard menu state', () => {
  it('a stdio entry is guardable; once rewritten it is guarded and no longer guardable; a remote entry is neither', () => {
    const file = '/work/proj/.vscode/mcp.json';
    const text =
      '{ "servers": { "s": { "command": "node", "args": ["s.js"] }, "r": { "type": "http", "url": "http://127.0.0.1:1/mcp" } } }';
    const servers = (source: string) => parseConfigText(source, file, 'vscode', parseContext()).servers.map((config) => ({ config }));
    const [stdio, remote] = servers(text);
    assert.deepEqual([isGuardable(stdio!), isGuarded(stdio!)], [true, false]);
    assert.deepEqual([isGuardable(remote!), isGuarded(remote!)], [false, false]);
    assert.equal(
      isGuardable({ config: { ...stdio!.config, command: undefined } }),
      false,
      'an entry without a command (a config error) is not offered',
    );
    const [guarded] = servers(guardEntry({ text, file, format: 'vscode', name: 's' }));
    assert.deepEqual([isGuardable(guarded!), isGuarded(guarded!)], [false, true]);
  });

  it('a sandboxed entry is not offered: VS Code would sandbox the guard in its place', () => {
    const file = '/work/proj/.vscode/mcp.json';
    const text =
      '{ "servers": { "s": { "command": "node", "args": ["s.js"], "sandboxEnabled": true, "sandbox": { "filesystem": { "allowWrite": ["/tmp/out"] } } } } }';
    const [sandboxed] = parseConfigText(text, file, 'vscode', parseContext()).servers.map((config) => ({ config }));
    assert.ok(sandboxed!.config.sandbox, 'the fixture is sandboxed');
    assert.equal(isGuardable(sandboxed!), false);
  });
});
