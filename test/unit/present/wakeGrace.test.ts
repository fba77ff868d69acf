import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PendingNotice } from '../../../src/present/notificationPolicy';
import { WAKE_GRACE_MS, WakeGrace } from '../../../src/present/wakeGrace';

function failure(name: string): PendingNotice {
  return {
    id: `id-${name}`,
    name,
    to: 'down',
    notice: { severity: 'error', message: `MCP server "${name}" is down: fetch failed`, recovery: false },
  };
}

void describe('notifications after a wake', () => {
  void it('holds failures during the grace, tells the ones that did not recover once, together', () => {
    const grace = new WakeGrace();
    assert.equal(grace.begin(1_000), WAKE_GRACE_MS);
    for (const name of ['a', 'b', 'c', 'd']) assert.equal(grace.hold(failure(name), 2_000), true, `${name} is held, not shown`);
    const stillFailing = new Set(['id-a', 'id-c', 'id-d']);
    const { notice, recovered } = grace.end((id) => stillFailing.has(id));
    assert.deepEqual(notice, {
      severity: 'error',
      message: '3 MCP servers did not recover after sleep: "a", "c", "d"',
      ids: ['id-a', 'id-c', 'id-d'],
    });
    assert.deepEqual(recovered, ['id-b']);
    // Told once: the grace is over and nothing is held any more.
    assert.equal(grace.end(() => true).notice, undefined);
    assert.equal(grace.hold(failure('e'), 2_000), false, 'outside a grace a failure is notified as usual');
  });

  void it('says nothing when every server recovered within the grace', () => {
    const grace = new WakeGrace();
    grace.begin(0);
    grace.hold(failure('a'), 10);
    assert.equal(grace.wasHeld('id-a'), true, 'its recovery is logged only');
    assert.deepEqual(
      grace.end(() => false),
      { notice: undefined, recovered: ['id-a'] },
    );
  });

  void it('ends the grace after WAKE_GRACE_MS, and keeps one failure in its own words', () => {
    const grace = new WakeGrace();
    grace.begin(0);
    assert.equal(grace.active(WAKE_GRACE_MS - 1), true);
    assert.equal(grace.active(WAKE_GRACE_MS), false);
    assert.equal(grace.hold(failure('late'), WAKE_GRACE_MS), false);
    grace.begin(100_000);
    grace.hold(failure('a'), 100_001);
    assert.equal(grace.end(() => true).notice?.message, 'After sleep: MCP server "a" is down: fetch failed');
  });
});
