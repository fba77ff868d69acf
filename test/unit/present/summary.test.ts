import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult } from '../../../src/core/model';
import { serverReport, summaryLine } from '../../../src/cli/format';
import { dashboardView } from '../../../src/present/dashboardModel';
import { isHealthy } from '../../../src/present/states';
import { badgeFor, pingOutcomeStatusText, pingOutcomeText, statusBarText, summarize } from '../../../src/present/summary';
import { status } from './fixtures';

void describe('summarize', () => {
  void it('reports nothing configured as worst none', () => {
    assert.deepEqual(summarize([]), {
      healthy: 0,
      monitored: 0,
      total: 0,
      starting: 0,
      waitingForConsent: 0,
      problems: 0,
      slow: 0,
      worst: 'none',
    });
  });

  void it('takes the worst condition regardless of order', () => {
    const up = status('a', { state: 'up' });
    const suspect = status('b', { state: 'suspect' });
    const down = status('c', { state: 'down' });
    for (const order of [
      [up, suspect, down],
      [down, suspect, up],
      [suspect, down, up],
      [up, down, suspect],
    ]) {
      assert.equal(summarize(order).worst, 'error');
    }
    assert.equal(summarize([up, suspect]).worst, 'warning');
    assert.equal(summarize([suspect, up]).worst, 'warning');
    assert.equal(summarize([up, status('d', { state: 'up' })]).worst, 'ok');
  });

  void it('does not count a flapping up server as healthy: its health is warning', () => {
    const summary = summarize([status('a', { state: 'up' }), status('b', { state: 'up', flapping: true, restarts: 3 })]);
    assert.deepEqual(summary, {
      healthy: 1,
      monitored: 2,
      total: 2,
      starting: 0,
      waitingForConsent: 0,
      problems: 1,
      slow: 0,
      worst: 'warning',
    });
  });

  void it('leaves disabled and Restricted-Mode servers out of monitored and worst', () => {
    const summary = summarize([status('a', { state: 'up' }), status('b', { state: 'disabled' }), status('c', { state: 'untrusted' })]);
    assert.deepEqual(summary, { healthy: 1, monitored: 1, total: 3, starting: 0, waitingForConsent: 0, problems: 0, slow: 0, worst: 'ok' });
    assert.equal(summarize([status('b', { state: 'disabled' })]).worst, 'none');
  });

  void it('counts config errors and missing inputs as monitored problems', () => {
    assert.deepEqual(summarize([status('a', { state: 'config-error' }), status('b', { state: 'up' })]), {
      healthy: 1,
      monitored: 2,
      total: 2,
      starting: 0,
      waitingForConsent: 0,
      problems: 1,
      slow: 0,
      worst: 'error',
    });
    assert.equal(summarize([status('a', { state: 'needs-input' }), status('b', { state: 'up' })]).worst, 'warning');
  });

  void it('does not count servers still connecting as a problem', () => {
    assert.deepEqual(summarize([status('a', { state: 'connecting' }), status('b', { state: 'idle' })]), {
      healthy: 0,
      monitored: 2,
      total: 2,
      starting: 2,
      waitingForConsent: 0,
      problems: 0,
      slow: 0,
      worst: 'ok',
    });
  });
});

void describe('statusBarText', () => {
  void it('shows healthy over monitored and the worst problem', () => {
    const summary = summarize([status('a'), status('b', { state: 'down' }), status('c', { state: 'disabled' })]);
    assert.equal(statusBarText(summary, false), '$(pulse) MCP 1/2 $(error)');
    assert.equal(statusBarText(summarize([status('a'), status('b', { state: 'suspect' })]), false), '$(pulse) MCP 1/2 $(warning)');
    assert.equal(statusBarText(summarize([status('a'), status('b')]), false), '$(pulse) MCP 2/2');
  });

  void it('shows how many servers wait for consent, outside the up/monitored count', () => {
    const summary = summarize([
      status('a', { state: 'needs-consent' }),
      status('b', { state: 'needs-consent' }),
      status('c', { state: 'up' }),
    ]);
    assert.deepEqual(summary, { healthy: 1, monitored: 1, total: 3, starting: 0, waitingForConsent: 2, problems: 0, slow: 0, worst: 'ok' });
    assert.equal(statusBarText(summary, false), '$(pulse) MCP 1/1 $(shield) 2');
  });

  void it('spins while busy', () => {
    assert.equal(statusBarText(summarize([status('a')]), true), '$(loading~spin) MCP 1/1');
  });

  void it('spins while servers start, so 0/2 does not read as two servers down; not while one reconnects after a failure', () => {
    assert.equal(
      statusBarText(summarize([status('a', { state: 'connecting' }), status('b', { state: 'up' })]), false),
      '$(loading~spin) MCP 1/2',
    );
    assert.equal(
      statusBarText(summarize([status('a', { state: 'down' }), status('b', { state: 'up' })]), false),
      '$(pulse) MCP 1/2 $(error)',
    );
    const crashed = status('a', {
      state: 'connecting',
      restarts: 2,
      lastError: { kind: 'exited', message: 'exited with code 3', exitCode: 3 },
    });
    assert.equal(summarize([crashed]).starting, 0);
    assert.equal(statusBarText(summarize([crashed, status('b', { state: 'up' })]), false), '$(pulse) MCP 1/2');
    const verifying = status('a', {
      state: 'verifying',
      restarts: 1,
      lastError: { kind: 'exited', message: 'exited with code 3', exitCode: 3 },
    });
    assert.equal(
      statusBarText(summarize([verifying, status('b', { state: 'up' })]), false),
      '$(pulse) MCP 1/2',
      'verifying is not healthy, nor a problem',
    );
  });

  void it('drops the count when nothing is configured', () => {
    assert.equal(statusBarText(summarize([]), false), '$(pulse) MCP');
  });
});

void describe('pingOutcomeText', () => {
  const result = (outcome: ProbeResult['outcome']): ProbeResult => ({ method: 'ping', outcome });
  void it('counts each outcome: "5 pinged: 4 ok, 1 timed out"', () => {
    assert.equal(
      pingOutcomeText(
        ['ok', 'ok', 'timeout', 'ok', 'ok'].map((o) => result(o as ProbeResult['outcome'])),
        5,
      ),
      '5 pinged: 4 ok, 1 timed out',
    );
    assert.equal(pingOutcomeText([result('failed'), result('ok')], 2), '2 pinged: 1 ok, 1 failed');
    assert.equal(pingOutcomeText([result('ok')], 2), '2 pinged: 1 ok, 1 not probed');
    assert.equal(pingOutcomeText([], 0), 'nothing to ping');
  });

  void it('puts an icon before it for the status bar', () => {
    assert.equal(pingOutcomeStatusText('3 pinged: 3 ok', true), '$(check) MCP 3 pinged: 3 ok');
    assert.equal(pingOutcomeStatusText('3 pinged: 2 ok, 1 timed out', false), '$(warning) MCP 3 pinged: 2 ok, 1 timed out');
  });
});

void describe('one model in every view', () => {
  // Two healthy servers, one down, one flapping (up, but crash-looping) and one suspect.
  const statuses = [
    status('alpha'),
    status('beta'),
    status('down', { state: 'down', lastError: { kind: 'exited', message: 'exited with code 3', exitCode: 3 } }),
    status('flapping', { state: 'up', flapping: true, restarts: 4 }),
    status('suspect', { state: 'suspect', lastError: { kind: 'protocol-violation', message: 'ping answered with a non-empty result' } }),
  ];

  void it('the status bar, the tree badge, the dashboard and the CLI count the same two healthy of five', () => {
    const summary = summarize(statuses);
    assert.equal(statusBarText(summary, false), '$(pulse) MCP 2/5 $(error)');
    assert.equal(badgeFor(summary)?.value, 3, 'down, flapping and suspect are the problems');
    assert.equal(dashboardView(statuses).summary, '2 of 5 monitored servers healthy');
    assert.equal(summaryLine(statuses.map(serverReport), { color: false }), '2/5 healthy');
    // Each view's own per-server health agrees with the count.
    const dashboardHealthy = dashboardView(statuses)
      .servers.filter((server) => server.health === 'ok')
      .map((server) => server.name);
    assert.deepEqual(dashboardHealthy, ['alpha', 'beta']);
    assert.deepEqual(
      statuses.filter(isHealthy).map((s) => s.config.name),
      ['alpha', 'beta'],
    );
  });

  void it('shows no badge when every monitored server is healthy', () => {
    assert.equal(badgeFor(summarize([status('a'), status('b', { state: 'disabled' })])), undefined);
  });
});

void describe('slow servers, counted apart in every view', () => {
  const slowOne = status('b', { state: 'up', slow: true, lastRttMs: 900 });
  const all = [status('a'), slowOne, status('c'), status('d'), status('e')];

  void it('is up but not healthy: warning colour, a problem for the badge, and a count of its own', () => {
    const summary = summarize(all);
    assert.deepEqual(summary, {
      healthy: 4,
      monitored: 5,
      total: 5,
      starting: 0,
      waitingForConsent: 0,
      problems: 1,
      slow: 1,
      worst: 'warning',
    });
    assert.equal(isHealthy(slowOne), false);
    assert.equal(isHealthy(status('x', { state: 'down', slow: true })), false);
    assert.equal(summarize([status('x', { state: 'down', slow: true })]).slow, 0, 'only an up server is slow; a down one is down');
  });

  void it('shows in the status bar, the tree badge, the dashboard, the CLI summary line and the report', () => {
    const summary = summarize(all);
    assert.equal(statusBarText(summary, false), '$(pulse) MCP 4/5 $(warning) 1 slow');
    assert.equal(statusBarText(summarize([status('a', { state: 'down' }), slowOne]), false), '$(pulse) MCP 0/2 $(error) 1 slow');
    assert.equal(badgeFor(summary)?.value, 1);
    assert.match(badgeFor(summary)?.tooltip ?? '', /4 of 5 monitored servers healthy, 1 slow/);
    assert.equal(dashboardView(all).summary, '4 of 5 monitored servers healthy, 1 slow');
    assert.equal(dashboardView(all).servers[1].health, 'warning');
    assert.match(dashboardView(all).servers[1].summary, /^up · 900 ms · slow$/);
    assert.equal(summaryLine(all.map(serverReport), { color: false }), '4/5 healthy, 1 slow');
  });

  void it('keeps the text as it was while nothing is slow', () => {
    assert.equal(statusBarText(summarize([status('a'), status('b')]), false), '$(pulse) MCP 2/2');
    assert.equal(summaryLine([status('a')].map(serverReport), { color: false }), '1/1 healthy');
  });
});
