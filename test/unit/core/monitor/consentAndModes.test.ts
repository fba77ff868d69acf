import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerConfig } from '../../../../src/core/model';
import { harness, INTERVAL_MS, server, stateOf, testSettings } from './harness';

const CHECK_MS = 60_000;

void describe('consent gate', () => {
  void it('never contacts a server without consent, starts it once allowed, closes it when consent is withdrawn', async () => {
    const allowed = new Set<string>();
    const h = harness({ consent: (config: ServerConfig) => allowed.has(config.id) });
    const a = server('a');
    const b = server('b');
    h.registry.setServers([a, b], []);
    h.registry.start();
    await h.clock.advance(5 * INTERVAL_MS);
    assert.equal(stateOf(h, a.id), 'needs-consent');
    assert.equal(h.connector.attempts.length, 0);
    assert.equal((await h.registry.pingNow()).size, 0, 'Ping Now does not contact it either');
    await h.registry.reconnect(a.id);
    assert.equal(h.connector.attempts.length, 0);

    allowed.add(a.id);
    h.registry.refreshGates();
    await h.clock.advance(0);
    assert.equal(stateOf(h, a.id), 'up');
    assert.equal(stateOf(h, b.id), 'needs-consent');
    assert.deepEqual(
      h.connector.attempts.map((attempt) => attempt.serverId),
      [a.id],
    );

    allowed.delete(a.id);
    h.registry.refreshGates();
    await h.clock.advance(0);
    assert.equal(stateOf(h, a.id), 'needs-consent');
    assert.equal(h.connector.latest(a.id).closeCalls, 1);
    await h.registry.dispose();
  });

  void it('keeps Restricted Mode on top: an untrusted workspace server shows untrusted, then asks for consent once trusted', async () => {
    const h = harness({ workspaceTrusted: false, consent: () => false });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS);
    assert.equal(stateOf(h, a.id), 'untrusted');
    h.registry.setTrusted(true);
    await h.clock.advance(INTERVAL_MS);
    assert.equal(stateOf(h, a.id), 'needs-consent');
    assert.equal(h.connector.attempts.length, 0);
    await h.registry.dispose();
  });

  void it('asks for consent before asking for ${input:} values', async () => {
    const h = harness({ consent: () => false });
    const a = server('a', { missingInputs: ['token'] });
    h.registry.setServers([a], []);
    assert.equal(stateOf(h, a.id), 'needs-consent');
    await h.registry.dispose();
  });
});

void describe('monitoring modes', () => {
  void it('check: connects, probes once, disconnects, and checks again at the check interval', async () => {
    const h = harness({ settings: { ...testSettings, mode: 'check', checkIntervalMs: CHECK_MS } });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(10);
    assert.equal(h.connector.attemptsFor(a.id).length, 1);
    const first = h.connector.latest(a.id);
    assert.equal(first.probes.length, 1, 'one probe on the fresh connection');
    assert.equal(first.closeCalls, 1, 'then the connection is closed');
    assert.equal(stateOf(h, a.id), 'up');
    assert.equal(h.registry.get(a.id)?.pid, null, 'no child left running');
    assert.equal(h.connector.openConnections().length, 0);

    await h.clock.advance(CHECK_MS - 100);
    assert.equal(h.connector.attemptsFor(a.id).length, 1, 'no keepalive and no reconnect in between');
    await h.clock.advance(200);
    assert.equal(h.connector.attemptsFor(a.id).length, 2, 'checked again after the check interval');
    assert.equal(h.connector.openConnections().length, 0);
    await h.registry.dispose();
  });

  void it('check: Ping Now connects, probes, and disconnects again', async () => {
    const h = harness({ settings: { ...testSettings, serverMode: { a: 'check' }, checkIntervalMs: CHECK_MS } });
    const a = server('a');
    const b = server('b');
    h.registry.setServers([a, b], []);
    h.registry.start();
    await h.clock.advance(10);
    const pinging = h.registry.pingNow(a.id);
    await h.clock.advance(10);
    const results = await pinging;
    assert.equal(results.get(a.id)?.outcome, 'ok');
    assert.equal(h.connector.attemptsFor(a.id).length, 2);
    assert.deepEqual(
      h.connector.openConnections().map((c) => c.serverId),
      [b.id],
      'b (watch) stays connected, a is closed',
    );
    await h.registry.dispose();
  });

  void it('check: a failed check is not retried with backoff, only at the next check', async () => {
    const h = harness({ settings: { ...testSettings, mode: 'check', checkIntervalMs: CHECK_MS } });
    const a = server('a');
    h.connector.always(a.id, { probe: () => ({ outcome: 'failed', detail: 'broken pipe' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(CHECK_MS - 100);
    assert.equal(stateOf(h, a.id), 'down');
    assert.equal(h.connector.attemptsFor(a.id).length, 1);
    await h.clock.advance(200);
    assert.equal(h.connector.attemptsFor(a.id).length, 2);
    await h.registry.dispose();
  });

  void it('off: listed only, never contacted; switching modes takes effect without re-discovery', async () => {
    const h = harness({ settings: { ...testSettings, serverMode: { a: 'off' } } });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(5 * INTERVAL_MS);
    assert.equal(stateOf(h, a.id), 'disabled');
    assert.equal(h.connector.attempts.length, 0);

    h.registry.updateSettings({ ...testSettings, serverMode: { a: 'watch' } });
    await h.clock.advance(0);
    assert.equal(stateOf(h, a.id), 'up');
    assert.equal(h.connector.openConnections().length, 1);

    h.registry.updateSettings({ ...testSettings, serverMode: { a: 'check' }, checkIntervalMs: CHECK_MS });
    await h.clock.advance(10);
    assert.equal(h.connector.openConnections().length, 0, 'check mode closed the kept connection after one probe');
    assert.equal(h.connector.attemptsFor(a.id).length, 2);

    h.registry.updateSettings({ ...testSettings, serverMode: { a: 'off' } });
    await h.clock.advance(CHECK_MS * 2);
    assert.equal(stateOf(h, a.id), 'disabled');
    assert.equal(h.connector.attemptsFor(a.id).length, 2, 'off cancels the scheduled check');
    assert.ok(h.events.some((e) => e.type === 'state' && e.id === a.id && e.to === 'disabled' && /mode off/.test(e.reason)));
    await h.registry.dispose();
  });
});
