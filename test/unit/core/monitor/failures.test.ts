import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectError } from '../../../../src/core/connection';
import { backoffCap } from '../../../../src/core/monitor/index';
import { harness, INTERVAL_MS, server, stateOf, testSettings, TIMEOUT_MS } from './harness';

const { backoff } = testSettings;

void describe('failures and reconnects', () => {
  void it('on a probe timeout: no retry, the connection is closed, state down, reconnect after a jittered backoff', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    h.connector.queue(a.id, { probe: () => ({ outcome: 'timeout' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS);
    const first = h.connector.connectionsFor(a.id)[0];
    assert.equal(first?.probes.length, 1, 'the timed-out probe is not retried');
    assert.equal(first?.closeCalls, 1, 'the dead connection is closed');
    const status = h.registry.get(a.id);
    assert.equal(status?.state, 'down');
    assert.equal(status?.lastError?.kind, 'timeout');
    assert.match(status?.lastError?.message ?? '', /no answer to ping within 2000 ms/);
    assert.deepEqual(h.stateChanges(a.id), ['idle->starting', 'starting->up', 'up->down']);

    const downAt = h.clock.monotonic();
    await h.clock.advance(backoff.initialMs);
    assert.equal(h.connector.attempts.length, 2);
    assert.equal((h.connector.attempts[1]?.at ?? 0) - downAt, 0.5 * backoff.initialMs, 'delay = random() * cap');
    const fresh = h.connector.latest(a.id);
    assert.equal(fresh.probes[0]?.at, h.connector.attempts[1]?.at, 'a fresh connection after a timeout is checked at once');
    assert.equal(stateOf(h, a.id), 'up');
    assert.ok(h.logs.some((line) => line.level === 'error' && line.message.includes('no answer to ping')));
    await h.registry.dispose();
  });

  void it('spaces reconnects by exponential backoff with full jitter, never beyond the cap', async () => {
    const draws = [0.999, 0.1, 0.999, 0.5, 0.999, 0.999, 0.2];
    let drawn = 0;
    const h = harness({ random: () => draws[drawn++ % draws.length] ?? 0 });
    const a = server('a');
    h.connector.always(a.id, { fail: new ConnectError('unreachable', 'connection refused') });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(60_000);
    const times = h.connector.attemptsFor(a.id).map((attempt) => attempt.at);
    const gaps = times.slice(1).map((time, index) => time - (times[index] ?? 0));
    assert.ok(gaps.length >= 7, `only ${gaps.length} reconnects`);
    gaps.forEach((gap, attempt) => {
      const cap = backoffCap(attempt, backoff);
      assert.ok(gap >= 0 && gap <= cap, `gap ${gap} outside [0, ${cap}] at attempt ${attempt}`);
      assert.equal(gap, Math.floor((draws[attempt % draws.length] ?? 0) * cap), 'each gap is the drawn fraction of the cap');
    });
    assert.ok(drawn >= gaps.length, 'jitter comes from the injected random source');
    assert.equal(stateOf(h, a.id), 'down');
    assert.equal(h.registry.get(a.id)?.lastError?.kind, 'unreachable');
    assert.equal(h.registry.get(a.id)?.consecutiveFailures, times.length);
    await h.registry.dispose();
  });

  void it('resets the backoff only once a connection is up and a probe succeeded', async () => {
    const h = harness({ random: () => 0.999 });
    const a = server('a');
    const refuse = { fail: new ConnectError('unreachable', 'refused') };
    h.connector.queue(a.id, refuse, refuse, refuse, {}, {});
    h.registry.setServers([a], []);
    h.registry.start();
    // Attempts at 0, +999, +1998, +3996: the fourth connects after failures, so it is verifying until its first
    // probe (sent at once) answers; it dies before that.
    await h.clock.advance(999 + 1_998 + 3_996);
    assert.equal(stateOf(h, a.id), 'verifying');
    h.connector.latest(a.id).die({ kind: 'exited', message: 'exited with code 1', exitCode: 1 });
    await h.clock.advance(0);
    const diedAt = h.clock.monotonic();
    await h.clock.advance(backoff.maxMs);
    const gapAfterUnprovenConnection = (h.connector.attempts[4]?.at ?? 0) - diedAt;
    assert.equal(gapAfterUnprovenConnection, Math.floor(0.999 * backoffCap(4, backoff)), 'a connect alone does not reset it');

    await h.clock.advance(INTERVAL_MS + 5);
    assert.equal(h.registry.get(a.id)?.stats.recent.at(-1)?.outcome, 'ok');
    h.connector.latest(a.id).die({ kind: 'exited', message: 'exited with code 1', exitCode: 1 });
    await h.clock.advance(0);
    const secondDeath = h.clock.monotonic();
    await h.clock.advance(backoff.maxMs);
    assert.equal((h.connector.attempts[5]?.at ?? 0) - secondDeath, Math.floor(0.999 * backoff.initialMs), 'reset after a good probe');
    await h.registry.dispose();
  });

  void it('reports a stdio exit at once, with exit code and stderr tail, without waiting for a probe', async () => {
    const h = harness();
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(3_000);
    const connection = h.connector.latest(a.id);
    connection.writeStderr('starting\n');
    connection.die({ kind: 'exited', message: 'process exited with code 3', exitCode: 3, signal: null, stderrTail: 'fatal: boom\n' });
    // No clock movement at all: the exit must show immediately.
    await h.clock.advance(0);
    const status = h.registry.get(a.id);
    assert.equal(status?.state, 'down');
    assert.equal(status?.lastError?.kind, 'exited');
    assert.equal(status?.lastError?.exitCode, 3);
    assert.equal(status?.lastError?.stderrTail, 'fatal: boom\n');
    assert.equal(status?.stderrTail, 'fatal: boom\n');
    assert.equal(status?.pid, null);
    assert.equal(connection.probes.length, 0);
    const stateEvent = h.events.find((event) => event.type === 'state' && event.to === 'down');
    assert.equal(stateEvent?.type === 'state' ? stateEvent.reason : '', 'process exited with code 3');
    assert.ok(h.events.some((event) => event.type === 'stderr' && event.text === 'starting\n'));
    assert.ok(h.logs.some((line) => line.level === 'debug' && line.message === 'a stderr: starting'));
    await h.clock.advance(backoff.initialMs);
    assert.equal(h.connector.attempts.length, 2, 'reconnected with backoff');
    assert.equal(stateOf(h, a.id), 'up');
    await h.registry.dispose();
  });

  void it('treats a probe that finds the connection closed as down/unreachable', async () => {
    const h = harness();
    const a = server('a');
    h.connector.queue(a.id, { probe: () => ({ outcome: 'closed', detail: 'stream ended' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 5);
    assert.equal(stateOf(h, a.id), 'down');
    assert.equal(h.registry.get(a.id)?.lastError?.kind, 'unreachable');
    assert.match(h.registry.get(a.id)?.lastError?.message ?? '', /stream ended/);
    await h.registry.dispose();
  });

  void it('keeps credentials failures apart: auth-required, retried only at the backoff ceiling or by hand', async () => {
    const h = harness({ random: () => 0 });
    const a = server('a', { transport: 'http', url: 'http://127.0.0.1:9/mcp' });
    h.connector.always(a.id, { fail: new ConnectError('auth', 'HTTP 401 Unauthorized', { httpStatus: 401 }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(backoff.maxMs - 1);
    assert.equal(stateOf(h, a.id), 'auth-required');
    assert.equal(h.registry.get(a.id)?.lastError?.kind, 'auth');
    assert.equal(h.registry.get(a.id)?.lastError?.httpStatus, 401);
    assert.equal(h.connector.attempts.length, 1, 'no hammering (random() = 0 would make backoff immediate)');
    await h.clock.advance(1);
    assert.equal(h.connector.attempts.length, 2);
    await h.registry.reconnect(a.id);
    assert.equal(h.connector.attempts.length, 3, 'a manual reconnect goes at once');
    await h.registry.dispose();
  });

  void it('moves to auth-required when a probe is refused for credentials', async () => {
    const h = harness();
    const a = server('a', { transport: 'http', url: 'http://127.0.0.1:9/mcp' });
    h.connector.queue(a.id, { probe: () => ({ outcome: 'auth', detail: 'HTTP 403' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 5);
    assert.equal(stateOf(h, a.id), 'auth-required');
    assert.equal(h.connector.latest(a.id).closeCalls, 1);
    await h.clock.advance(backoff.maxMs - 1);
    assert.equal(h.connector.attempts.length, 1);
    await h.registry.dispose();
  });

  void it('carries exit details of a failed connect into the error', async () => {
    const h = harness();
    const a = server('a');
    h.connector.always(a.id, {
      fail: new ConnectError('exited', 'exited during start-up with code 127', { exitCode: 127, stderrTail: 'node: not found' }),
    });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(0);
    const status = h.registry.get(a.id);
    assert.equal(status?.state, 'down');
    assert.equal(status?.lastError?.exitCode, 127);
    assert.equal(status?.stderrTail, 'node: not found');
    await h.registry.dispose();
  });

  void it('does not trust a connect or probe that never settles: its own guard ends it', async () => {
    const h = harness();
    const a = server('a');
    const b = server('b');
    h.connector.always(a.id, { hang: true });
    h.connector.queue(b.id, { probe: () => ({ outcome: 'hang' }) });
    h.registry.setServers([a, b], []);
    h.registry.start();
    await h.clock.advance(testSettings.connectTimeoutMs + 1_000);
    assert.equal(stateOf(h, a.id), 'down');
    assert.equal(h.registry.get(a.id)?.lastError?.kind, 'timeout');
    assert.equal(h.connector.attempts[0]?.options.signal?.aborted, true, 'the hung attempt is aborted');
    await h.clock.advance(INTERVAL_MS - testSettings.connectTimeoutMs - 1_000 + TIMEOUT_MS + 1_000);
    assert.equal(stateOf(h, b.id), 'down');
    assert.equal(h.registry.get(b.id)?.lastError?.kind, 'timeout');
    await h.registry.dispose();
    assert.equal(h.clock.pendingTimers(), 0);
  });

  void it('does not let a close that never finishes block the reconnect forever', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    h.connector.queue(a.id, { hangOnClose: true });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(0);
    h.connector.latest(a.id).die({ kind: 'exited', message: 'killed', signal: 'SIGKILL' });
    await h.clock.advance(0);
    assert.equal(h.registry.get(a.id)?.lastError?.signal, 'SIGKILL');
    // The backoff (0.5 s) elapses, then the reconnect waits up to 10 s for the old child to go.
    await h.clock.advance(500 + 9_999);
    assert.equal(h.connector.attempts.length, 1, 'waits for the old child to go');
    await h.clock.advance(1);
    assert.equal(h.connector.attempts.length, 2);
    assert.ok(h.logs.some((line) => line.level === 'warn' && line.message.includes('did not close')));
    // dispose() is bounded the same way, even though the stuck close never settles.
    await Promise.all([h.registry.dispose(), h.clock.advance(10_000)]);
    assert.equal(h.clock.pendingTimers(), 0);
  });
});
