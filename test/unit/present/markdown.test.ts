import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commandUri, escapeMarkdown } from '../../../src/present/markdown';
import { Commands } from '../../../src/present/commandIds';

void describe('escapeMarkdown', () => {
  void it('neutralises a link to a command hidden in a server name', () => {
    const escaped = escapeMarkdown('[click](command:workbench.action.terminal.sendSequence)');
    assert.equal(escaped, '\\[click\\]\\(command:workbench\\.action\\.terminal\\.sendSequence\\)');
  });

  void it('neutralises theme icons, emphasis, code, html and headings', () => {
    assert.equal(escapeMarkdown('$(alert)'), '\\$\\(alert\\)');
    assert.equal(escapeMarkdown('**bold** _it_ `code`'), '\\*\\*bold\\*\\* \\_it\\_ \\`code\\`');
    assert.equal(escapeMarkdown('<img src=x>'), '\\<img src=x\\>');
    assert.equal(escapeMarkdown('# title'), '\\# title');
  });

  void it('escapes backslashes first so an escape cannot be undone', () => {
    assert.equal(escapeMarkdown('\\[x]'), '\\\\\\[x\\]');
  });

  void it('folds newlines so text cannot start a new block', () => {
    assert.equal(escapeMarkdown('a\nb\r\nc'), 'a b c');
  });

  void it('leaves ordinary words alone', () => {
    assert.equal(escapeMarkdown('github server 2'), 'github server 2');
  });
});

void describe('commandUri', () => {
  void it('encodes JSON arguments the way VS Code parses them', () => {
    const uri = commandUri(Commands.pingNow, 'server:/ws/.vscode/mcp.json#a b');
    assert.ok(uri.startsWith('command:mcpHealth.pingNow?'));
    assert.deepEqual(JSON.parse(decodeURIComponent(uri.slice(uri.indexOf('?') + 1))), ['server:/ws/.vscode/mcp.json#a b']);
    assert.ok(!/[\s()[\]]/.test(uri), 'nothing that could end the Markdown link');
  });

  void it('keeps a server id with an unbalanced parenthesis inside the link target', () => {
    const uri = commandUri(Commands.reconnect, 'server:/ws/.vscode/mcp.json#beta)');
    assert.ok(!/[()]/.test(uri), uri);
  });

  void it('has no query without arguments', () => {
    assert.equal(commandUri(Commands.pingAll), 'command:mcpHealth.pingAll');
  });
});
