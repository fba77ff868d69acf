import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectError } from '../../../../src/core/connection';
import { harness, INTERVAL_MS, server, stateOf } from './harness';

void describe('registry', () => {
  void it('reconciles re-discovery: unchanged servers keep their connection, edited ones reconnect, gone ones close', async () => {
    const h = harness();
    const keep = server('keep', { env: { A: '1' } });
    const edit = server('edit');
    const drop = server('drop');
    h.registry.setServers([keep, edit, drop], []);
    h.registry.start();
    await h.clock.advance(0);
    const serversEvents = () => h.events.filter((event) => event.type === 'servers').length;
    assert.equal(serversEvents(), 1);

    // The same configuration as new objects: nothing happens at all.
    h.registry.setServers([server('keep', { env: { A: '1' } }), server('edit'), server('drop')], []);
    await h.clock.advance(0);
    assert.equal(serversEvents(), 1);
    assert.equal(h.connector.attempts.length, 3);

    const added = server('added');
    h.registry.setServers([server('keep', { env: { A: '1' } }), server('edit', { args: ['v2.js'] }), added], []);
    await h.clock.advance(0);
    assert.equal(serversEvents(), 2);
    assert.equal(h.connector.connectionsFor(keep.id).length, 1);
    assert.equal(h.connector.latest(keep.id).closeCalls, 0, 'untouched');
    assert.equal(h.connector.connectionsFor(edit.id).length, 2);
    assert.equal(h.connector.connectionsFor(edit.id)[0]?.closeCalls, 1, 'old edit closed');
    assert.equal(h.connector.latest(drop.id).closeCalls, 1, 'gone: closed');
    assert.equal(h.registry.get(drop.id), undefined);
    assert.equal(stateOf(h, added.id), 'up');
    assert.deepEqual(h.registry.get(edit.id)?.config.args, ['v2.js']);
    assert.deepEqual(
      h.registry.list().map((status) => status.config.name),
      ['keep', 'edit', 'added'],
    );
    assert.equal(h.connector.openConnections().length, 3);

    await h.clock.advance(INTERVAL_MS);
    assert.equal(h.connector.latest(keep.id).probes.length, 1, 'the kept connection keeps its schedule');
    await h.registry.dispose();
  });

  void it('keeps the connection of a server that only moved in its file (an edit above it shifted its line)', async () => {
    const h = harness();
    const at = (line: number) => ({ env: { line: line + 2, column: 7 }, args: { line: line + 1, column: 7 } });
    const plain = server('below');
    const below = { ...plain, source: { ...plain.source, keys: at(plain.source.line) } };
    h.registry.setServers([below], []);
    h.registry.start();
    await h.clock.advance(0);
    // Its env and args keys move with it.
    const moved = { ...below, source: { ...below.source, line: below.source.line + 4, keys: at(below.source.line + 4) } };
    h.registry.setServers([moved], []);
    await h.clock.advance(0);
    assert.equal(h.connector.attempts.length, 1, 'not reconnected');
    assert.equal(h.connector.latest(below.id).closeCalls, 0);
    assert.equal(h.registry.get(below.id)?.config.source.line, below.source.line + 4, 'the status shows the new line');
    assert.equal(h.events.filter((event) => event.type === 'servers').length, 2, 'views hear about the move');
    await h.registry.dispose();
  });

  void it('pingNow connects where needed, probes every server in parallel and resolves with each result', async () => {
    const h = harness();
    const servers = ['a', 'b', 'c'].map((name) => server(name));
    const refused = server('refused');
    for (const config of servers) {
      h.connector.always(config.id, { afterMs: 100, probe: () => ({ outcome: 'ok', afterMs: 1_500 }) });
    }
    h.connector.always(refused.id, { fail: new ConnectError('unreachable', 'ECONNREFUSED 127.0.0.1:9') });
    h.registry.setServers([...servers, refused], []);
    const pending = h.registry.pingNow();
    await h.clock.advance(1_600);
    const results = await pending;
    assert.deepEqual([...results.keys()].sort(), [...servers.map((config) => config.id), refused.id].sort());
    for (const config of servers) {
      assert.equal(results.get(config.id)?.outcome, 'ok');
      assert.equal(h.connector.latest(config.id).probes[0]?.at, 100, 'all probed at once, not one after another');
    }
    assert.deepEqual(results.get(refused.id), { method: 'initialize', outcome: 'failed', detail: 'ECONNREFUSED 127.0.0.1:9' });
    assert.equal(stateOf(h, refused.id), 'down');
    assert.equal(h.clock.pendingTimers(), 0, 'not started: no keepalive, no automatic reconnect');
    await h.registry.dispose();
  });

  void it('reconnect() tears down and connects at once, resetting the backoff', async () => {
    const h = harness({ random: () => 0.999 });
    const a = server('a');
    const refuse = { fail: new ConnectError('unreachable', 'refused') };
    h.connector.queue(a.id, refuse, refuse, refuse, refuse);
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(999 + 1_998 + 3_000);
    assert.equal(h.connector.attempts.length, 3);
    await h.registry.reconnect();
    assert.equal(h.connector.attempts.length, 4, 'at once, not after the pending backoff');
    assert.equal(stateOf(h, a.id), 'down');
    const failedAt = h.clock.monotonic();
    await h.clock.advance(1_000);
    assert.equal(h.connector.attempts.length, 5);
    assert.equal((h.connector.attempts[4]?.at ?? 0) - failedAt, 999, 'backoff restarted from the first step');
    assert.equal(stateOf(h, a.id), 'verifying', 'connected after failures: not trusted until a probe answers');
    await h.clock.advance(10);
    assert.equal(stateOf(h, a.id), 'up');
    const connection = h.connector.latest(a.id);
    await h.registry.reconnect(a.id);
    assert.equal(connection.closeCalls, 1);
    assert.equal(h.connector.connectionsFor(a.id).length, 2);
    assert.ok(h.registry.get(a.id)?.restarts === 1, 'a reconnect after an established connection is a restart');
    await h.registry.dispose();
  });

  void it('dispose closes every connection, abandons connects in progress, clears every timer and goes silent', async () => {
    const h = harness();
    const up = server('up');
    const slow = server('slow');
    const failing = server('failing');
    h.connector.always(slow.id, { afterMs: 3_000 });
    h.connector.always(failing.id, { fail: new ConnectError('unreachable', 'refused') });
    h.registry.setServers([up, slow, failing], []);
    h.registry.start();
    await h.clock.advance(100);
    assert.ok(h.clock.pendingTimers() >= 3, 'idle, connect and reconnect timers are pending');
    const eventsBefore = h.events.length;
    await h.registry.dispose();
    assert.equal(h.connector.latest(up.id).closeCalls, 1);
    assert.equal(h.connector.disposeCalls, 1, 'the connector frees what its connections shared');
    assert.equal(h.clock.pendingTimers(), 1, "only the fake connector's own slow connect is left");
    await h.clock.advance(5_000);
    assert.equal(h.connector.latest(slow.id).closeCalls, 1, 'a connection arriving after dispose is closed at once');
    assert.equal(h.connector.openConnections().length, 0);
    assert.equal(h.clock.pendingTimers(), 0);
    assert.equal(h.events.length, eventsBefore, 'no events after dispose');
    h.registry.setServers([server('late')], []);
    h.registry.start();
    assert.equal((await h.registry.pingNow()).size, 0);
    assert.equal(h.connector.attempts.length, 3);
  });

  void it('keeps other listeners and the monitor running when one listener throws, and unsubscribes', async () => {
    const h = harness();
    const a = server('a');
    const unsubscribe = h.registry.onEvent(() => {
      throw new Error('broken view');
    });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(0);
    assert.equal(stateOf(h, a.id), 'up');
    assert.ok(h.events.some((event) => event.type === 'state' && event.to === 'up'));
    assert.ok(h.logs.some((line) => line.level === 'error' && line.message.includes('broken view')));
    unsubscribe();
    const errors = h.logs.filter((line) => line.level === 'error').length;
    await h.clock.advance(INTERVAL_MS + 5);
    assert.equal(h.logs.filter((line) => line.level === 'error').length, errors);
    await h.registry.dispose();
  });

  void it('masks secrets in errors, stderr and logs', async () => {
    const h = harness({ redact: (text) => text.replace(/Bearer \S+/g, 'Bearer ****') });
    const a = server('a', { env: { API_TOKEN: 's3cr3t-value' }, secretValues: ['s3cr3t-value'] });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(0);
    const connection = h.connector.latest(a.id);
    connection.writeStderr('using token s3cr3t-value and Bearer abc.def\n');
    connection.die({ kind: 'exited', message: 'exited: bad key s3cr3t-value', exitCode: 2, stderrTail: 'key=s3cr3t-value' });
    await h.clock.advance(0);
    const status = h.registry.get(a.id);
    // The config itself holds the secret by nature; front ends redact it when they show it.
    const everything = JSON.stringify({ status, events: h.events, logs: h.logs }, (key, value: unknown) =>
      key === 'config' ? undefined : value,
    );
    assert.ok(!everything.includes('s3cr3t-value'), 'the secret leaked');
    assert.ok(!everything.includes('abc.def'), 'the general redactor was not applied');
    assert.equal(status?.lastError?.message, 'exited: bad key ***');
    assert.equal(status?.lastError?.stderrTail, 'key=***');
    assert.ok(h.events.some((event) => event.type === 'stderr' && event.text === 'using token *** and Bearer ****\n'));
    await h.registry.dispose();
  });
});
