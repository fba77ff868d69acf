import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerState } from '../../../src/core/model';
import {
  DEFAULT_QUIET_MS,
  groupNotices,
  NotificationPolicy,
  type PendingNotice,
  type StateChange,
} from '../../../src/present/notificationPolicy';
import { status } from './fixtures';

const QUIET_MS = 60_000;

function change(name: string, from: ServerState, to: ServerState, reason = ''): StateChange {
  const snapshot = status(name, { state: to });
  return { id: snapshot.config.id, from, to, reason, status: snapshot };
}

void describe('NotificationPolicy', () => {
  void it('announces a server going down as an error naming the server and the reason', () => {
    const notice = new NotificationPolicy(QUIET_MS).decide(change('github', 'up', 'down', 'exited (code 1)'), 'errors', 0);
    assert.deepEqual(notice, { severity: 'error', message: 'MCP server "github" is down: exited (code 1)', recovery: false });
  });

  void it('announces protocol violations and auth failures as warnings', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    const suspect = policy.decide(change('a', 'up', 'suspect', 'ping answered with an error'), 'errors', 0);
    assert.deepEqual(suspect, {
      severity: 'warning',
      message: 'MCP server "a" answered against the protocol: ping answered with an error',
      recovery: false,
    });
    const auth = policy.decide(change('b', 'up', 'auth-required'), 'errors', 0);
    assert.deepEqual(auth, { severity: 'warning', message: 'MCP server "b" needs authentication', recovery: false });
  });

  void it('says once, as an error, that it gave up on a crash loop, even inside the quiet period of the down notice', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.ok(policy.decide(change('loop', 'up', 'down', 'exited (code 1)'), 'errors', 0));
    const notice = policy.decide(change('loop', 'down', 'gave-up', 'gave up after 5 crashes in 3 min'), 'errors', 1_000);
    assert.deepEqual(notice, {
      severity: 'error',
      message: 'MCP server "loop" keeps crashing: gave up after 5 crashes in 3 min; it is not restarted until you reconnect it',
      recovery: false,
    });
  });

  void it('stays silent for states that are not failures', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    for (const to of ['connecting', 'idle', 'disabled', 'untrusted', 'needs-input', 'config-error'] as const) {
      assert.equal(policy.decide(change('a', 'up', to), 'all', 0), undefined, to);
    }
  });

  void it('rate-limits failure notices per server within the quiet period', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', 0));
    assert.equal(policy.decide(change('a', 'up', 'down'), 'errors', 1_000), undefined);
    assert.equal(policy.decide(change('a', 'up', 'suspect'), 'errors', QUIET_MS - 1), undefined);
    assert.ok(policy.decide(change('b', 'up', 'down'), 'errors', 1_000), 'another server has its own quiet period');
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', QUIET_MS), 'the quiet period has passed');
  });

  void it('restarts the quiet period only when a notice is shown', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', 0));
    assert.equal(policy.decide(change('a', 'up', 'down'), 'errors', QUIET_MS - 1), undefined);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', QUIET_MS));
  });

  void it('keeps a flapping server to one notice per quiet period', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    let shown = 0;
    for (let second = 0; second < 180; second += 5) {
      const at = second * 1000;
      if (policy.decide(change('flappy', 'up', 'down'), 'all', at)) shown++;
      policy.decide(change('flappy', 'down', 'up'), 'all', at + 2_000);
    }
    assert.equal(shown, 3);
  });

  void it('with level errors ignores first failures and recoveries', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.equal(policy.decide(change('a', 'connecting', 'down'), 'errors', 0), undefined);
    assert.equal(policy.decide(change('a', 'idle', 'auth-required'), 'errors', 0), undefined);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', 0));
    assert.equal(policy.decide(change('a', 'down', 'up'), 'errors', 1_000), undefined);
  });

  void it('with level all also announces a server that never came up, and its recovery once', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.equal(policy.decide(change('a', 'connecting', 'down'), 'all', 0)?.severity, 'error');
    assert.ok(policy.decide(change('b', 'idle', 'auth-required'), 'all', 0));
    assert.deepEqual(policy.decide(change('a', 'down', 'up'), 'all', 1_000), {
      severity: 'info',
      message: 'MCP server "a" is up again.',
      recovery: true,
    });
    assert.equal(policy.decide(change('a', 'connecting', 'up'), 'all', 2_000), undefined, 'recovery is announced once');
  });

  void it('does not announce a recovery nobody was told about', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.equal(policy.decide(change('a', 'connecting', 'up'), 'all', 0), undefined);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'all', 0));
    assert.ok(policy.decide(change('a', 'down', 'up'), 'all', 1));
    assert.equal(policy.decide(change('a', 'up', 'down'), 'all', 2), undefined, 'rate-limited');
    assert.equal(policy.decide(change('a', 'down', 'up'), 'all', 3), undefined, 'its failure was not shown');
  });

  void it('ignores failures that follow another failure', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.equal(policy.decide(change('a', 'suspect', 'down'), 'all', 0), undefined);
    assert.equal(policy.decide(change('a', 'down', 'down'), 'all', 0), undefined);
  });

  void it('with level off says nothing and does not spend the quiet period', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.equal(policy.decide(change('a', 'up', 'down'), 'off', 0), undefined);
    assert.equal(policy.decide(change('a', 'down', 'up'), 'off', 1), undefined);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', 2));
  });

  void it('forgets a removed server so it is announced again when it returns', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    const first = change('a', 'up', 'down');
    assert.ok(policy.decide(first, 'all', 0));
    policy.forget(first.id);
    assert.equal(policy.decide(change('a', 'down', 'up'), 'all', 1), undefined, 'the announced failure was forgotten');
    assert.ok(policy.decide(change('a', 'up', 'down'), 'all', 2), 'the quiet period was forgotten');
  });

  void it('uses a five-minute quiet period by default', () => {
    assert.equal(DEFAULT_QUIET_MS, 300_000);
    const policy = new NotificationPolicy();
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', 0));
    assert.equal(policy.decide(change('a', 'up', 'down'), 'errors', 299_999), undefined);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', 300_000));
  });
});

void describe('muting and grouping', () => {
  void it('never notifies about a server the user muted, and keeps the rate limit of the others', () => {
    const muted = new Set<string>();
    const policy = new NotificationPolicy(QUIET_MS, (id) => muted.has(id));
    const a = change('a', 'up', 'down');
    muted.add(a.id);
    assert.equal(policy.decide(a, 'all', 0), undefined);
    assert.equal(policy.decide(change('a', 'down', 'up'), 'all', 1), undefined, 'nor about its recovery');
    assert.equal(policy.decide(change('b', 'up', 'down'), 'errors', 0)?.severity, 'error');
    assert.equal(policy.decide(change('b', 'up', 'down'), 'errors', 1_000), undefined, 'per-server rate limit stays');
  });

  void it('tells failures that arrived together in one notification', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    const pending: PendingNotice[] = ['a', 'b', 'c'].map((name) => {
      const c = change(name, 'up', 'down', 'exited (code 3)');
      return { id: c.id, name, to: c.to, notice: policy.decide(c, 'errors', 0)! };
    });
    assert.deepEqual(groupNotices(pending), {
      severity: 'error',
      message: '3 MCP servers are down: "a", "b", "c"',
      ids: pending.map((entry) => entry.id),
    });
    assert.equal(groupNotices(pending.slice(0, 1))?.message, 'MCP server "a" is down: exited (code 3)', 'one stays as it was');
    assert.equal(groupNotices([]), undefined);
    const s = change('s', 'up', 'suspect');
    const mixed = groupNotices([pending[0]!, { id: s.id, name: 's', to: 'suspect', notice: policy.decide(s, 'errors', 0)! }]);
    assert.equal(mixed?.message, '2 MCP servers have problems: "a" (down), "s" (suspect)');
  });
});

void describe('a grouped notice of servers that recovered meanwhile', () => {
  const policy = new NotificationPolicy(QUIET_MS);
  const pending = (name: string): PendingNotice => {
    const c = change(name, 'up', 'down', 'exited (code 3)');
    return { id: c.id, name, to: c.to, notice: policy.decide(c, 'errors', 0)! };
  };

  void it('says they are up again, so it never contradicts the status bar', () => {
    const [a, b] = [pending('a'), pending('b')];
    assert.deepEqual(
      groupNotices([a!], () => true),
      { severity: 'warning', message: 'MCP server "a" is down: exited (code 3) (up again)', ids: [a!.id] },
    );
    assert.equal(groupNotices([a!, b!], () => true)?.message, '2 MCP servers failed and are up again: "a", "b"');
    assert.equal(groupNotices([a!, b!], (id) => id === b!.id)?.message, '2 MCP servers went down: "a", "b" (up again)');
  });
});

void describe('NotificationPolicy reminders', () => {
  const MINUTE = 60_000;
  const REMIND = 30 * MINUTE;
  const down = (name: string) =>
    status(name, {
      state: 'down',
      cause: { id: 'connection-refused', summary: 'Nothing is listening at that host and port', nextStep: 'Start the server' },
    });

  void it('tells again about a server still down once the interval has passed since its last notice, and again after another', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    assert.ok(policy.decide(change('a', 'up', 'down'), 'errors', 0));
    assert.deepEqual(policy.remind([down('a')], 'errors', REMIND, REMIND - 1), [], 'not before the interval');
    const [first, ...rest] = policy.remind([down('a')], 'errors', REMIND, REMIND);
    assert.equal(rest.length, 0);
    assert.equal(first.to, 'down');
    assert.deepEqual(first.notice, {
      severity: 'error',
      message: 'MCP server "a" is still down (for 30 min): Nothing is listening at that host and port',
      recovery: false,
    });
    assert.deepEqual(policy.remind([down('a')], 'errors', REMIND, REMIND + 10 * MINUTE), [], 'the reminder restarted the interval');
    assert.match(policy.remind([down('a')], 'errors', REMIND, 2 * REMIND)[0]?.notice.message ?? '', /still down \(for 60 min\)/);
  });

  void it('never reminds with the interval at 0, at level off, for a muted server, or for one never announced', () => {
    const muted = new Set<string>();
    const policy = new NotificationPolicy(QUIET_MS, (id) => muted.has(id));
    policy.decide(change('a', 'up', 'down'), 'errors', 0);
    assert.deepEqual(policy.remind([down('a')], 'errors', 0, 10 * REMIND), []);
    assert.deepEqual(policy.remind([down('a')], 'off', REMIND, 10 * REMIND), []);
    assert.deepEqual(policy.remind([down('never-announced')], 'errors', REMIND, 10 * REMIND), []);
    muted.add(status('a').config.id);
    assert.deepEqual(policy.remind([down('a')], 'errors', REMIND, 10 * REMIND), []);
  });

  void it('stops once the server is up again, and a new outage starts its own count', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    policy.decide(change('a', 'up', 'down'), 'errors', 0);
    assert.deepEqual(policy.remind([status('a', { state: 'up' })], 'errors', REMIND, REMIND), [], 'recovered but not yet told: not down');
    assert.equal(policy.awaitingRecovery, true);
    policy.decide(change('a', 'down', 'up'), 'errors', REMIND + 1);
    assert.equal(policy.awaitingRecovery, false, 'nothing left to remind of: the adapter stops its ticks');
    assert.deepEqual(policy.remind([down('a')], 'errors', REMIND, 3 * REMIND), [], 'the recovery forgot the outage');
    policy.decide(change('a', 'up', 'down'), 'errors', 4 * REMIND);
    assert.match(policy.remind([down('a')], 'errors', REMIND, 5 * REMIND)[0]?.notice.message ?? '', /for 30 min/);
  });

  void it('reminds several servers at once, so the adapter groups them as one notification', () => {
    const policy = new NotificationPolicy(QUIET_MS);
    for (const name of ['a', 'b', 'c']) policy.decide(change(name, 'up', 'down'), 'errors', 0);
    const due = policy.remind([down('a'), down('b'), down('c')], 'errors', REMIND, REMIND);
    assert.deepEqual(
      due.map((entry) => entry.name),
      ['a', 'b', 'c'],
    );
    assert.match(groupNotices(due)?.message ?? '', /^3 MCP servers are down: "a", "b", "c"$/);
  });
});
