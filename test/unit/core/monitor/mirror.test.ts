// Servers another process runs: not connected here, listed with that process's status, actions forwarded, and taken
// back (connected here) when the source goes away.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProbeResult, ServerConfig } from '../../../../src/core/model';
import { toRemote, type RemoteStatus, type StatusSource } from '../../../../src/core/monitor/statusSource';
import { harness, server, stateOf } from './harness';

class FakeSource implements StatusSource {
  readonly label = 'another VS Code window';
  readonly statuses = new Map<string, RemoteStatus>();
  readonly forwarded: string[] = [];
  private readonly listeners = new Set<() => void>();

  covers(config: ServerConfig): boolean {
    return config.source.scope === 'user';
  }
  status(id: string): RemoteStatus | undefined {
    return this.statuses.get(id);
  }
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  report(id: string, status: RemoteStatus): void {
    this.statuses.set(id, status);
    for (const listener of this.listeners) listener();
  }
  listenerCount(): number {
    return this.listeners.size;
  }
  pingNow(id: string): Promise<ProbeResult | null> {
    this.forwarded.push(`ping ${id}`);
    return Promise.resolve({ method: 'ping', outcome: 'ok', rttMs: 3 });
  }
  reconnect(id: string): Promise<void> {
    this.forwarded.push(`reconnect ${id}`);
    return Promise.resolve();
  }
}

const userServer = server('shared', { scope: 'user', env: { TOKEN: 'secret-value' } });
const workspaceServer = server('local');

void describe('mirrored servers (one copy per machine)', () => {
  void it('a follower never connects a covered server and shows the source status, marked as watched elsewhere', async () => {
    const h = harness();
    const source = new FakeSource();
    h.registry.setStatusSource(source);
    h.registry.setServers([userServer, workspaceServer], []);
    h.registry.start();
    await h.clock.advance(60_000);
    assert.equal(h.connector.connectionsFor(userServer.id).length, 0, 'the follower starts no copy of a user-level server');
    assert.equal(stateOf(h, workspaceServer.id), 'up', 'workspace-level servers stay with their window');
    const waiting = h.registry.get(userServer.id);
    assert.equal(waiting?.state, 'idle');
    assert.match(waiting?.watchedElsewhere ?? '', /another VS Code window/);

    // The leader reports it: the follower shows exactly that, on its own config.
    const leaderView = harness();
    leaderView.registry.setServers([userServer], []);
    leaderView.registry.start();
    await leaderView.clock.advance(0);
    const reported = toRemote(leaderView.registry.get(userServer.id)!);
    const before = h.events.filter((event) => event.type === 'servers').length;
    source.report(userServer.id, reported);
    assert.equal(h.events.filter((event) => event.type === 'servers').length, before + 1, 'views refresh on a report');
    const shown = h.registry.get(userServer.id);
    assert.equal(shown?.state, 'up');
    assert.equal(shown?.pid, reported.pid);
    assert.equal(shown?.config, userServer);
    assert.equal(shown?.watchedElsewhere, 'another VS Code window');
    assert.equal(h.stateChanges(userServer.id).length, 0, 'no state events (and so no notifications) for a mirror');

    // Actions go to the leader.
    const results = await h.registry.pingNow(userServer.id);
    assert.equal(results.get(userServer.id)?.outcome, 'ok');
    await h.registry.reconnect(userServer.id);
    assert.deepEqual(source.forwarded, [`ping ${userServer.id}`, `reconnect ${userServer.id}`]);
    assert.equal(h.connector.connectionsFor(userServer.id).length, 0);
    await Promise.all([h.registry.dispose(), leaderView.registry.dispose()]);
    assert.equal(source.listenerCount(), 0, 'the registry lets go of the source on dispose');
  });

  void it('hand-over: when the source goes away the server connects here; a new source closes it again', async () => {
    const h = harness();
    const source = new FakeSource();
    h.registry.setServers([userServer, workspaceServer], []);
    h.registry.setStatusSource(source);
    h.registry.start();
    await h.clock.advance(0);
    assert.equal(h.connector.connectionsFor(userServer.id).length, 0);

    h.registry.setStatusSource(null);
    await h.clock.advance(0);
    assert.equal(h.connector.connectionsFor(userServer.id).length, 1, 'taken over: connected here');
    assert.equal(stateOf(h, userServer.id), 'up');
    assert.equal(h.registry.get(userServer.id)?.watchedElsewhere, undefined);
    assert.equal(source.listenerCount(), 0);

    // Another window won the election meanwhile: ours closes, nothing runs twice.
    h.registry.setStatusSource(new FakeSource());
    await h.clock.advance(0);
    assert.equal(h.connector.latest(userServer.id).closeCalls, 1);
    assert.equal(h.connector.openConnections().length, 1, 'only the workspace server is still connected here');
    assert.equal(h.connector.latest(workspaceServer.id).closeCalls, 0);
    await h.registry.dispose();
  });

  void it('a server disabled in this window keeps its own reason rather than the mirror', async () => {
    const h = harness();
    h.registry.setServers([userServer], []);
    h.registry.setEnabled(userServer.id, false);
    h.registry.setStatusSource(new FakeSource());
    assert.equal(stateOf(h, userServer.id), 'disabled');
    assert.equal(h.registry.get(userServer.id)?.watchedElsewhere, undefined);
    await h.registry.dispose();
  });

  void it('what goes on the wire carries no config (env and header values stay in this process)', () => {
    const h = harness();
    h.registry.setServers([userServer], []);
    const wire = JSON.stringify(toRemote(h.registry.get(userServer.id)!));
    assert.ok(!wire.includes('secret-value'));
    assert.ok(!wire.includes('"config"'));
    void h.registry.dispose();
  });
});
