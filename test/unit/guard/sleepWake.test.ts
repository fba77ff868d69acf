import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultGuardSettings } from '../../../src/guard/guardSession';
import { flushPromises } from '../../helpers/fakeClock';
import { handshake, setup } from './guardHarness';

const MINUTE = 60_000;

/** A session past its handshake, its keepalive running. */
async function readySession() {
  const t = setup();
  await handshake(t);
  await flushPromises();
  return { ...t, lines: t.logLines };
}

void describe('guard across a sleep', () => {
  void it('probes its upstream once, at once, on wake, and says so', async () => {
    const t = await readySession();
    await t.clock.advance(defaultGuardSettings.intervalMs / 2);
    assert.equal(t.upstreams[0]!.probes().length, 0);
    t.clock.sleep(12 * MINUTE);
    await t.clock.advance(0);
    assert.ok(t.lines.includes('info resumed after 12 min asleep: probing the upstream'), t.lines.join('\n'));
    assert.equal(t.upstreams[0]!.probes().length, 1, 'one probe, not the late idle timer and the wake each');
  });

  void it('does not declare the upstream dead for a probe whose timeout ran out while asleep: it asks again', async () => {
    const t = await readySession();
    await t.clock.advance(defaultGuardSettings.intervalMs);
    const upstream = t.upstreams[0]!;
    assert.equal(upstream.probes().length, 1, 'the keepalive probe is out');
    t.clock.sleep(5 * MINUTE);
    await t.clock.advance(0);
    assert.equal(t.upstreams.length, 1, 'not restarted on a timeout the process was not awake for');
    const [, again] = upstream.probes();
    assert.ok(again, 'a fresh probe went out');
    upstream.say({ jsonrpc: '2.0', id: again.id, result: {} });
    await t.clock.advance(defaultGuardSettings.timeoutMs * 2);
    assert.equal(t.upstreams.length, 1);
    assert.equal(t.session.status().state, 'ready');
  });

  void it('restarts through the normal path when the wake probe finds the HTTP session expired', async () => {
    const t = await readySession();
    await t.clock.advance(1_000);
    t.clock.sleep(20 * MINUTE);
    await t.clock.advance(0);
    // What the HTTP upstream reports when the server answers 404 on the session id.
    t.upstreams[0]!.events.ended({ message: 'upstream session expired (HTTP 404)', exitCode: null, signal: null, stderrTail: '' });
    await t.clock.advance(defaultGuardSettings.backoff.initialMs);
    assert.equal(t.upstreams.length, 2, 'a new upstream, so a new session');
    assert.equal(
      t.upstreams[1]!.written.map((text) => (JSON.parse(text) as { method?: string }).method)[0],
      'initialize',
      'the handshake is replayed',
    );
  });
});
