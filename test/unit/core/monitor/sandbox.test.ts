import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailure } from '../../../../src/core/causes';
import { ConnectError } from '../../../../src/core/connection';
import { harness, server, testSettings } from './harness';

const policy = { filesystem: { allowWrite: [], denyRead: [], denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } };

void describe('a sandbox that cannot be set up', () => {
  void it('shows the server as "sandboxed: not started" with the reason, counts no failure, and retries only rarely', async () => {
    const h = harness();
    const a = server('a', { sandbox: policy });
    h.connector.always(a.id, {
      fail: new ConnectError('sandbox', 'sandboxed: not started: bubblewrap (bwrap) is not on the PATH', { code: 'SANDBOX_NO_BWRAP' }),
    });
    h.registry.setServers([a], []);
    h.registry.start();
    await h.clock.advance(1);
    const status = h.registry.get(a.id);
    assert.equal(status?.state, 'sandbox-unavailable');
    assert.equal(status?.lastError?.kind, 'sandbox');
    assert.equal(status?.consecutiveFailures, 0, 'nothing was started, so nothing failed');
    assert.deepEqual(status?.cause, {
      id: 'sandbox-unavailable',
      summary: 'sandboxed: not started: bubblewrap (bwrap) is not on the PATH',
      nextStep: 'Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)',
    });
    await h.clock.advance(testSettings.backoff.maxMs - 2);
    assert.equal(h.connector.attemptsFor(a.id).length, 1, 'not tried again within the backoff ceiling');
    await h.clock.advance(2);
    assert.equal(h.connector.attemptsFor(a.id).length, 2);
    assert.ok(!h.stateChanges(a.id).some((change) => change.endsWith('->down')), 'never shown down');
    await h.registry.dispose();
  });

  void it('names what to install for each missing piece', () => {
    const next = (code: string) =>
      classifyFailure({ state: 'sandbox-unavailable', transport: 'stdio', error: { kind: 'sandbox', message: 'm', code } })?.nextStep ?? '';
    assert.match(next('SANDBOX_NO_SOCAT'), /apt install socat/);
    assert.match(next('SANDBOX_NO_RIPGREP'), /apt install ripgrep/);
    assert.match(next('SANDBOX_BWRAP_FAILED'), /user namespaces/);
    assert.match(next('SANDBOX_UNSUPPORTED_OS'), /Linux and macOS only/);
  });
});
