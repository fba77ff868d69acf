import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pingOutcomeText, statusBarText, summarize } from '../../../src/vscode/present/summary';
import { status } from './fixtures';

void describe('summarize', () => {
  void it('reports nothing configured as worst none', () => {
    assert.deepEqual(summarize([]), { up: 0, monitored: 0, total: 0, starting: 0, waitingForConsent: 0, worst: 'none' });
  });

  void it('takes the worst condition regardless of order', () => {
    const up = status('a', { state: 'up' });
    const suspect = status('b', { state: 'suspect' });
    const down = status('c', { state: 'down' });
    for (const order of [[up, suspect, down], [down, suspect, up], [suspect, down, up], [up, down, suspect]]) {
      assert.equal(summarize(order).worst, 'error');
    }
    assert.equal(summarize([up, suspect]).worst, 'warning');
    assert.equal(summarize([suspect, up]).worst, 'warning');
    assert.equal(summarize([up, status('d', { state: 'up' })]).worst, 'ok');
  });

  void it('counts a flapping up server as up but its health as warning', () => {
    const summary = summarize([status('a', { state: 'up' }), status('b', { state: 'up', flapping: true, restarts: 3 })]);
    assert.deepEqual(summary, { up: 2, monitored: 2, total: 2, starting: 0, waitingForConsent: 0, worst: 'warning' });
  });

  void it('leaves disabled and Restricted-Mode servers out of monitored and worst', () => {
    const summary = summarize([
      status('a', { state: 'up' }),
      status('b', { state: 'disabled' }),
      status('c', { state: 'untrusted' }),
    ]);
    assert.deepEqual(summary, { up: 1, monitored: 1, total: 3, starting: 0, waitingForConsent: 0, worst: 'ok' });
    assert.equal(summarize([status('b', { state: 'disabled' })]).worst, 'none');
  });

  void it('counts config errors and missing inputs as monitored problems', () => {
    assert.deepEqual(summarize([status('a', { state: 'config-error' }), status('b', { state: 'up' })]), { up: 1, monitored: 2, total: 2, starting: 0, waitingForConsent: 0, worst: 'error' });
    assert.equal(summarize([status('a', { state: 'needs-input' }), status('b', { state: 'up' })]).worst, 'warning');
  });

  void it('does not count servers still connecting as a problem', () => {
    assert.deepEqual(summarize([status('a', { state: 'connecting' }), status('b', { state: 'idle' })]), { up: 0, monitored: 2, total: 2, starting: 2, waitingForConsent: 0, worst: 'ok' });
  });
});

void describe('statusBarText', () => {
  void it('shows up over monitored with the pulse icon', () => {
    const summary = summarize([status('a'), status('b', { state: 'down' }), status('c', { state: 'disabled' })]);
    assert.equal(statusBarText(summary, false), '$(pulse) MCP 1/2');
  });

  void it('shows how many servers wait for consent, outside the up/monitored count', () => {
    const summary = summarize([status('a', { state: 'needs-consent' }), status('b', { state: 'needs-consent' }), status('c', { state: 'up' })]);
    assert.deepEqual(summary, { up: 1, monitored: 1, total: 3, starting: 0, waitingForConsent: 2, worst: 'ok' });
    assert.equal(statusBarText(summary, false), '$(pulse) MCP 1/1 $(shield) 2');
  });

  void it('spins while busy', () => {
    assert.equal(statusBarText(summarize([status('a')]), true), '$(loading~spin) MCP 1/1');
  });

  void it('spins while servers start, so 0/2 does not read as two servers down; not while one reconnects after a failure', () => {
    assert.equal(statusBarText(summarize([status('a', { state: 'connecting' }), status('b', { state: 'up' })]), false), '$(loading~spin) MCP 1/2');
    assert.equal(statusBarText(summarize([status('a', { state: 'down' }), status('b', { state: 'up' })]), false), '$(pulse) MCP 1/2');
    const crashed = status('a', { state: 'connecting', restarts: 2, lastError: { kind: 'exited', message: 'exited with code 3', exitCode: 3 } });
    assert.equal(summarize([crashed]).starting, 0);
    assert.equal(statusBarText(summarize([crashed, status('b', { state: 'up' })]), false), '$(pulse) MCP 1/2');
  });

  void it('drops the count when nothing is configured', () => {
    assert.equal(statusBarText(summarize([]), false), '$(pulse) MCP');
  });
});

void describe('pingOutcomeText', () => {
  void it('distinguishes all answered, some answered and nothing to ping', () => {
    assert.equal(pingOutcomeText(3, 3), '$(check) MCP 3/3 answered');
    assert.equal(pingOutcomeText(2, 3), '$(warning) MCP 2/3 answered');
    assert.equal(pingOutcomeText(0, 0), '$(info) MCP: nothing to ping');
  });
});
