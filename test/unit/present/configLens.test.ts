import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Inventory } from '../../../src/core/inventory/types';
import { Commands } from '../../../src/present/commandIds';
import {
  lensActions,
  lensCommandArgument,
  lensSummary,
  nameSpan,
  serverHoverMarkdown,
  serverLensModel,
} from '../../../src/present/configLens';
import { describeState, stateIcon } from '../../../src/present/states';
import { status } from './fixtures';

const NOW = 1_700_000_000_000;

function inventory(tools: number): Inventory {
  return {
    tools: { count: tools, hash: 'h', tools: [], definitions: null },
    prompts: { count: 2 },
    resources: null,
    complete: true,
    problems: [],
    listedAt: NOW,
  };
}

void describe('config file lens text', () => {
  void it('an up server: the tree icon, state, round trip and tool count', () => {
    const up = status('everything', { lastRttMs: 0.4, inventory: inventory(13) });
    assert.equal(lensSummary(up, NOW), '$(pass-filled) up · 0.4 ms · 13 tools');
    assert.equal(lensSummary(status('one', { inventory: inventory(1) }), NOW), '$(pass-filled) up · 3 ms · 1 tool');
  });

  void it('uses the same words and icon as the tree for every state', () => {
    const down = status('x', {
      state: 'down',
      lastRttMs: null,
      nextRetryAt: NOW + 8_000,
      lastError: { kind: 'exited', message: 'process exited', exitCode: 1 },
    });
    assert.equal(lensSummary(down, NOW), `$(${stateIcon(down).id}) ${describeState(down, NOW)}`);
    assert.equal(lensSummary(down, NOW), '$(error) down · exited (code 1) · retrying in 8 s');
    for (const state of ['idle', 'connecting', 'verifying', 'suspect', 'needs-consent', 'disabled', 'untrusted', 'config-error'] as const) {
      const s = status('x', { state });
      assert.equal(lensSummary(s, NOW), `$(${stateIcon(s).id}) ${describeState(s, NOW)}`, state);
    }
    // A down server's count is from a connection that is gone: not shown as what it offers now.
    assert.doesNotMatch(lensSummary({ ...down, inventory: inventory(13) }, NOW), /tool/);
    // No count before the first listing: nothing is guessed.
    assert.doesNotMatch(lensSummary(status('x', { inventory: null }), NOW), /tool/);
  });

  void it('offers Ping, Reconnect and Show Log on a monitored server; what the user must do on a waiting one', () => {
    const commands = (s: Parameters<typeof lensActions>[0]) => lensActions(s).map((action) => action.command);
    assert.deepEqual(commands(status('x')), [Commands.pingNow, Commands.reconnect, Commands.showLog]);
    assert.deepEqual(commands(status('x', { state: 'down' })), [Commands.pingNow, Commands.reconnect, Commands.showLog]);
    assert.deepEqual(commands(status('x', { state: 'needs-consent' })), [Commands.allow, Commands.showLog]);
    assert.deepEqual(commands(status('x', { state: 'needs-input' })), [Commands.supplyInput, Commands.showLog]);
    assert.deepEqual(commands(status('x', { state: 'config-error' })), [Commands.showLog]);
    assert.deepEqual(commands(status('x', { state: 'disabled' })), [Commands.showLog]);
    assert.deepEqual(
      lensActions(status('x')).map((action) => action.title),
      ['Ping', 'Reconnect', 'Show Log'],
    );
  });

  void it('the model carries the id and name the adapter places and the commands act on', () => {
    const model = serverLensModel(status('srv'), NOW);
    assert.equal(model.id, '/ws/app/.vscode/mcp.json#srv');
    assert.equal(model.name, 'srv');
    assert.equal(model.tooltip, 'MCP Health: srv is up · 3 ms');
    assert.equal(lensCommandArgument(model.id), 'server:/ws/app/.vscode/mcp.json#srv');
  });
});

void describe('config file hover', () => {
  void it('shows the detail rows of the tree tooltip and the actions as command links', () => {
    const s = status('everything', { inventory: inventory(13), pid: 4242, stderrTail: 'listening on stdio\n' });
    const markdown = serverHoverMarkdown(s, NOW);
    assert.match(markdown, /^\$\(pass-filled\) \*\*everything\*\* — up · 3 ms/);
    assert.match(markdown, /- tools: 13 tools · 2 prompts/);
    assert.match(markdown, /- pid: 4242/);
    assert.match(markdown, /stderr:\n\n```text\nlistening on stdio\n```/);
    const argument = encodeURIComponent(JSON.stringify(['server:/ws/app/.vscode/mcp.json#everything']));
    assert.ok(markdown.includes(`[Ping](command:${Commands.pingNow}?${argument} `), markdown);
    assert.ok(markdown.includes(`[Show Log](command:${Commands.showLog}?${argument} `), markdown);
  });

  void it('escapes a hostile server name: no link, no command, no markup of its own', () => {
    const s = status('[x](command:workbench.action.terminal.new)', { config: { id: 'evil' } });
    const markdown = serverHoverMarkdown(s, NOW);
    assert.doesNotMatch(markdown, /\[x\]\(command:workbench/);
    assert.match(markdown, /\\\[x\\\]\\\(command:workbench\\\.action\\\.terminal\\\.new\\\)/);
  });

  void it('finds the name on its key line from the parsed column, whatever the format', () => {
    assert.deepEqual(nameSpan('    "everything": {', 'everything', 5), { start: 5, end: 15 });
    assert.deepEqual(nameSpan('[mcp_servers.docs]', 'docs', 2), { start: 13, end: 17 });
    assert.deepEqual(nameSpan('  - name: first', 'first', 5), { start: 10, end: 15 });
    // Written with an escape: the rest of the line from the key.
    assert.deepEqual(nameSpan('    "a\\u0062": {', 'ab', 5), { start: 4, end: 16 });
  });
});
