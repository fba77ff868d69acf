import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectSlots, MAX_CONCURRENT_CONNECTS } from '../../../../src/core/monitor/connectSlots';
import { harness, server } from './harness';

void describe('connect slots', () => {
  void it('grants at most the limit at once and hands freed slots on in arrival order', async () => {
    const slots = new ConnectSlots(2);
    const granted: number[] = [];
    const releases = await Promise.all([slots.acquire(), slots.acquire()]);
    const third = slots.acquire().then((release) => (granted.push(3), release));
    const fourth = slots.acquire().then((release) => (granted.push(4), release));
    await Promise.resolve();
    assert.deepEqual(granted, []);
    releases[0]();
    releases[0](); // a second release of the same slot frees nothing more
    await third;
    await Promise.resolve();
    assert.deepEqual(granted, [3]);
    releases[1]();
    await fourth;
    assert.deepEqual(granted, [3, 4]);
  });

  void it('spreads a burst of connects over time instead of starting every server at once', async () => {
    const h = harness();
    const count = MAX_CONCURRENT_CONNECTS * 2 + 8;
    const servers = Array.from({ length: count }, (_, index) => server(`s${index}`));
    for (const config of servers) h.connector.always(config.id, { afterMs: 1_000 });
    h.registry.setServers(servers, []);
    h.registry.start();
    await h.clock.advance(0);
    assert.equal(h.connector.attempts.length, MAX_CONCURRENT_CONNECTS);
    await h.clock.advance(1_000);
    assert.equal(h.connector.attempts.length, MAX_CONCURRENT_CONNECTS * 2);
    await h.clock.advance(1_000);
    assert.equal(h.connector.attempts.length, count);
    await h.clock.advance(1_000);
    // Waiting for a slot does not count against the connect timeout: every server came up on its first attempt.
    assert.equal(h.registry.list().filter((status) => status.state === 'up').length, count);
    await h.registry.dispose();
  });
});
