import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsentPromptPolicy, consentMessage, nextMode, whatWouldRun } from '../../../src/present/consentModel';
import { status, WORKSPACE } from './fixtures';

const display = (file: string) => file.replace(`${WORKSPACE}/`, '');

void describe('consent wording', () => {
  void it('names the count and every file', () => {
    const waiting = ['a', 'b', 'c', 'd', 'e'].map((name) => status(name, { state: 'needs-consent' }));
    assert.equal(consentMessage(waiting, display), 'MCP Health found 5 servers in .vscode/mcp.json. Start watching them?');
    const two = [status('a'), status('b', { config: { source: { file: `${WORKSPACE}/.mcp.json` } } })];
    assert.equal(consentMessage(two, display), 'MCP Health found 2 servers in .vscode/mcp.json and .mcp.json. Start watching them?');
    assert.equal(consentMessage([status('a')], display), 'MCP Health found 1 server in .vscode/mcp.json. Start watching it?');
  });

  void it('shows what would run with secrets masked', () => {
    const secret = 'ghp_0123456789abcdefABCDEF';
    const stdio = status('gh', { config: { command: 'npx', args: ['-y', 'server-github', `--token=${secret}`, 'my dir'], secretValues: [secret] } });
    const text = whatWouldRun(stdio);
    assert.match(text, /^npx -y server-github --token=\S+ "my dir"$/);
    assert.ok(!text.includes(secret));
    const http = status('h', { config: { transport: 'http', url: `https://127.0.0.1:1/mcp?key=${secret}`, secretValues: [secret] } });
    assert.ok(!whatWouldRun(http).includes(secret));
    assert.match(whatWouldRun(http), /^https:\/\/127\.0\.0\.1:1\/mcp/);
  });

  void it('cycles the modes watch, check, off', () => {
    assert.deepEqual([nextMode('watch'), nextMode('check'), nextMode('off')], ['check', 'off', 'watch']);
  });
});

void describe('when to ask for consent', () => {
  void it('asks once at a time, not again after Not Now, again for a new or changed definition, again after a reset', () => {
    const policy = new ConsentPromptPolicy();
    assert.equal(policy.shouldAsk([]), false, 'nothing waiting: no question');
    assert.equal(policy.shouldAsk(['a#1', 'b#1']), true);
    policy.opened();
    assert.equal(policy.shouldAsk(['a#1', 'b#1', 'c#1']), false, 'one question at a time, even when discovery runs again');
    policy.dismiss(['a#1', 'b#1']);
    policy.closed();
    assert.equal(policy.shouldAsk(['a#1', 'b#1']), false, 'Not Now: the same waiting servers do not ask again (no loop)');
    assert.equal(policy.shouldAsk(['a#1', 'b#2']), true, 'b changed its definition');
    assert.equal(policy.shouldAsk(['a#1', 'b#1', 'c#1']), true, 'c is new');
    policy.forget();
    assert.equal(policy.shouldAsk(['a#1']), true, 'after a reset everything asks again');
    assert.equal(new ConsentPromptPolicy().shouldAsk(['a#1']), true, 'a new window asks again');
  });
});
