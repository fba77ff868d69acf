import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConsentPromptPolicy,
  consentMessage,
  describeChanges,
  describeEnv,
  nextMode,
  whatWouldRun,
} from '../../../src/present/consentModel';
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
    const stdio = status('gh', {
      config: { command: 'npx', args: ['-y', 'server-github', `--token=${secret}`, 'my dir'], secretValues: [secret] },
    });
    const text = whatWouldRun(stdio);
    assert.match(text, /^npx -y server-github --token=\S+ "my dir"$/);
    assert.ok(!text.includes(secret));
    const http = status('h', { config: { transport: 'http', url: `https://127.0.0.1:1/mcp?key=${secret}`, secretValues: [secret] } });
    assert.ok(!whatWouldRun(http).includes(secret));
    assert.match(whatWouldRun(http), /^https:\/\/127\.0\.0\.1:1\/mcp/);
  });

  void it('shows env names, and values only where the secret rule says they are no secret', () => {
    const secret = 'sk-live-0123456789abcdef';
    const config = { env: { NODE_OPTIONS: '--max-old-space-size=512', API_TOKEN: secret, OTHER: `x${secret}` }, secretValues: [secret] };
    const text = describeEnv(status('s', { config }).config);
    assert.equal(text, 'Environment: API_TOKEN=***, NODE_OPTIONS=--max-old-space-size=512, OTHER=x***');
    assert.equal(describeEnv(status('s').config), '');
    // The single-server question carries it, and what changed since the user allowed the server.
    const one = status('s', { state: 'needs-consent', config });
    const changed = consentMessage([one], display, () => [
      { kind: 'changed', part: 'env', name: 'NODE_OPTIONS' },
      { kind: 'changed', part: 'args' },
    ]);
    assert.equal(
      changed,
      `MCP Health found 1 server in .vscode/mcp.json. Start watching it? s: Changed since you allowed it: NODE_OPTIONS changed, arguments changed. ${text}`,
    );
    assert.ok(!changed.includes(secret));
  });

  void it('names a changed or dropped sandbox policy', () => {
    assert.equal(describeChanges([{ kind: 'changed', part: 'sandbox' }]), 'Changed since you allowed it: sandbox policy changed.');
    assert.equal(describeChanges([{ kind: 'removed', part: 'sandbox' }]), 'Changed since you allowed it: sandbox policy removed.');
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
