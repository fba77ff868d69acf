import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigDiagnostic } from '../../../../src/core/model';
import { harness, INTERVAL_MS, server, stateOf } from './harness';

void describe('servers that must not be contacted', () => {
  void it('never connects a server still waiting for ${input:} values', async () => {
    const h = harness();
    const a = server('a', { missingInputs: ['api-key', 'region'] });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(5 * INTERVAL_MS);
    assert.equal(stateOf(h, a.id), 'needs-input');
    assert.deepEqual(h.registry.get(a.id)?.lastError, { kind: 'input-required', message: 'waiting for input: api-key, region' });
    assert.equal((await h.registry.pingNow()).size, 0);
    await h.registry.reconnect(a.id);
    assert.equal(h.connector.attempts.length, 0);

    h.registry.setServers([server('a')], []);
    await h.clock.advance(0);
    assert.equal(h.connector.attempts.length, 1, 'connects once the input is supplied');
    assert.equal(stateOf(h, a.id), 'up');
    await h.registry.dispose();
  });

  void it('lists workspace servers of an untrusted workspace as untrusted and never starts them', async () => {
    const h = harness({ workspaceTrusted: false });
    const workspace = server('ws');
    const user = server('user', { scope: 'user' });
    h.registry.setServers([workspace, user], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS);
    assert.equal(stateOf(h, workspace.id), 'untrusted');
    assert.equal(stateOf(h, user.id), 'up');
    assert.deepEqual(
      h.connector.attempts.map((attempt) => attempt.serverId),
      [user.id],
    );
    assert.equal((await h.registry.pingNow(workspace.id)).size, 0);
    assert.equal(h.connector.attemptsFor(workspace.id).length, 0);

    h.registry.setTrusted(true);
    await h.clock.advance(0);
    assert.equal(stateOf(h, workspace.id), 'up');
    assert.deepEqual(h.stateChanges(workspace.id), ['untrusted->idle', 'idle->starting', 'starting->up']);

    h.registry.setTrusted(false);
    await h.clock.advance(0);
    assert.equal(stateOf(h, workspace.id), 'untrusted');
    assert.equal(h.connector.latest(workspace.id).closeCalls, 1, 'trust withdrawn: the connection is closed');
    assert.equal(stateOf(h, user.id), 'up');
    await h.registry.dispose();
  });

  void it('respects disabled in the file and setEnabled, across re-discovery', async () => {
    const h = harness();
    const a = server('a', { disabled: true });
    const b = server('b');
    h.registry.setServers([a, b], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + 5);
    assert.equal(stateOf(h, a.id), 'disabled');
    assert.equal(h.connector.attemptsFor(a.id).length, 0);

    h.registry.setEnabled(b.id, false);
    await h.clock.advance(0);
    assert.equal(stateOf(h, b.id), 'disabled');
    const connection = h.connector.latest(b.id);
    assert.equal(connection.closeCalls, 1);
    const probesBefore = connection.probes.length;
    await h.clock.advance(3 * INTERVAL_MS);
    assert.equal(connection.probes.length, probesBefore, 'no probes while disabled');

    h.registry.setServers([a, b], []);
    assert.equal(stateOf(h, b.id), 'disabled', 'the choice survives re-discovery');
    h.registry.setEnabled(b.id, true);
    await h.clock.advance(0);
    assert.equal(stateOf(h, b.id), 'up');
    assert.equal(h.connector.attemptsFor(b.id).length, 2);
    await h.registry.dispose();
  });

  void it('lists servers that diagnostics name in config-error, with the place of the problem', async () => {
    const h = harness();
    const good = server('good');
    const flagged = server('flagged');
    const file = good.source.file;
    const diagnostics: ConfigDiagnostic[] = [
      { file, line: 9, column: 7, severity: 'error', message: 'server "broken" has neither command nor url', serverName: 'broken' },
      { file, line: 12, column: 3, severity: 'error', message: '"args" must be an array', serverName: 'flagged' },
      { file, line: 2, column: 1, severity: 'warning', message: 'unknown key "foo"', serverName: 'good' },
      { file: '/home/u/.cursor/mcp.json', line: 1, column: 1, severity: 'error', message: 'not valid JSON' },
    ];
    h.registry.setServers([good, flagged], diagnostics);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS);
    assert.deepEqual(h.registry.diagnostics(), diagnostics);
    const broken = h.registry.get(`${file}#broken`);
    assert.equal(broken?.state, 'config-error');
    assert.deepEqual(broken?.lastError, {
      kind: 'config',
      message: `server "broken" has neither command nor url (${file}:9:7)`,
    });
    assert.equal(broken?.config.name, 'broken');
    assert.equal(broken?.config.transport, 'stdio');
    assert.deepEqual(broken?.config.source, { file, line: 9, column: 7, format: 'vscode', scope: 'workspace', folder: '/work/ws' });
    assert.equal(stateOf(h, flagged.id), 'config-error', 'an error naming a loaded server keeps it from starting');
    assert.equal(stateOf(h, good.id), 'up', 'a warning does not');
    assert.deepEqual(
      h.connector.attempts.map((attempt) => attempt.serverId),
      [good.id],
    );
    assert.deepEqual(
      h.registry.list().map((status) => status.config.name),
      ['good', 'flagged', 'broken'],
    );
    await h.registry.dispose();
  });
});
