// The failure threshold on a fake clock: a server that was up is shown reconnecting, not down, until the configured
// number of failures in a row; the default keeps the protocol's rule (one timeout = down). Connections are replaced
// on every failure either way: a timed-out probe is never retried.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectError } from '../../../../src/core/connection';
import { parseSettings } from '../../../../src/present/settingsModel';
import { harness, INTERVAL_MS, server, testSettings, TIMEOUT_MS } from './harness';

describe('failures before down', () => {
  it('shows a server that was up as reconnecting until the third failure in a row', async () => {
    const h = harness({ settings: { ...testSettings, failuresBeforeDown: 3 }, random: () => 0.5 });
    const a = server('a');
    h.connector.always(a.id, { probe: () => ({ outcome: 'timeout' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS);
    assert.equal(h.registry.get(a.id)?.state, 'connecting', 'one timeout: reconnecting, not down');
    assert.equal(h.connector.connectionsFor(a.id)[0]?.closeCalls, 1, 'the dead connection is closed all the same');
    for (let i = 0; i < 4 && h.registry.get(a.id)?.state !== 'down'; i++) await h.clock.advance(testSettings.backoff.maxMs + TIMEOUT_MS);
    assert.equal(h.registry.get(a.id)?.state, 'down');
    const firstDown = h.events.find((event) => event.type === 'state' && event.to === 'down');
    assert.equal(firstDown?.type === 'state' && firstDown.status.consecutiveFailures, 3, 'down exactly at the third failure');
    const changes = h.stateChanges(a.id);
    assert.ok(
      changes.indexOf('up->connecting') >= 0 &&
        changes.indexOf('up->connecting') < changes.findIndex((change) => change.endsWith('->down')),
      changes.join(' '),
    );
    await h.registry.dispose();
  });

  it('keeps one failure = down by default', async () => {
    const h = harness();
    const a = server('a');
    h.connector.queue(a.id, { probe: () => ({ outcome: 'timeout' }) });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS + TIMEOUT_MS);
    assert.equal(h.registry.get(a.id)?.state, 'down');
    await h.registry.dispose();
  });

  it('never softens a server that was never up', async () => {
    const h = harness({ settings: { ...testSettings, failuresBeforeDown: 5 } });
    const a = server('a');
    h.connector.queue(a.id, { fail: new ConnectError('unreachable', 'refused') });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1);
    assert.equal(h.registry.get(a.id)?.state, 'down');
    await h.registry.dispose();
  });
});

describe('failuresBeforeDown setting', () => {
  it('is read from mcpHealth.failuresBeforeDown, bounded, and absent at 1', () => {
    assert.equal(parseSettings((key) => (key === 'failuresBeforeDown' ? 3 : undefined)).monitor.failuresBeforeDown, 3);
    assert.equal(parseSettings((key) => (key === 'failuresBeforeDown' ? 99 : undefined)).monitor.failuresBeforeDown, 10);
    assert.equal('failuresBeforeDown' in parseSettings((key) => (key === 'failuresBeforeDown' ? 1 : undefined)).monitor, false);
    assert.equal(parseSettings((key) => (key === 'successesBeforeUp' ? 2 : undefined)).monitor.successesBeforeUp, 2);
  });
});

describe('successes before up', () => {
  it('shows a server that failed as recovering until three probes in a row have answered', async () => {
    const h = harness({ settings: { ...testSettings, successesBeforeUp: 3 }, random: () => 0.5 });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1);
    assert.equal(h.registry.get(a.id)?.state, 'up', 'the first connect is up at once: nothing failed yet');
    h.connector.latest(a.id).die({ kind: 'exited', message: 'Process exited with code 1', exitCode: 1 });
    assert.equal(h.registry.get(a.id)?.state, 'down');
    await h.clock.advance(testSettings.backoff.initialMs + 10);
    assert.equal(h.connector.connectionsFor(a.id).length, 2);
    const recovering = h.registry.get(a.id);
    assert.equal(recovering?.state, 'verifying', 'reconnected and one probe answered, but not three yet');
    await h.clock.advance(INTERVAL_MS + 10);
    assert.equal(h.registry.get(a.id)?.state, 'verifying');
    await h.clock.advance(INTERVAL_MS + 10);
    assert.equal(h.registry.get(a.id)?.state, 'up');
    const progress = h.logs
      .filter((line) => line.level === 'info' && /recovering: \d\/3 probes answered/.test(line.message))
      .map((line) => line.message);
    assert.deepEqual(progress, [
      'a: down -> verifying (connected (handshake 2025-11-25); recovering: 0/3 probes answered)',
      'a: recovering: 1/3 probes answered',
      'a: recovering: 2/3 probes answered',
    ]);
    await h.registry.dispose();
  });

  it('is up as soon as it is connected again by default', async () => {
    const h = harness({ random: () => 0.5 });
    const a = server('a');
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1);
    h.connector.latest(a.id).die({ kind: 'exited', message: 'Process exited with code 1', exitCode: 1 });
    await h.clock.advance(testSettings.backoff.initialMs + 10);
    assert.equal(h.registry.get(a.id)?.state, 'up');
    await h.registry.dispose();
  });
});
