// Restricted Mode, core side: servers declared in workspace files are never started or contacted while the workspace
// is untrusted, whatever is asked of the registry; user-level servers keep being monitored.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerConfig } from '../../../../src/core/model';
import { createRegistry } from '../../../../src/core/monitor';
import { FakeClock } from '../../../helpers/fakeClock';
import { FakeConnector } from '../../../helpers/fakeConnector';
import { serverConfig } from '../../../helpers/serverConfig';
import { testSettings } from './harness';

function server(name: string, scope: 'workspace' | 'user', transport: ServerConfig['transport'] = 'stdio'): ServerConfig {
  const file = scope === 'workspace' ? '/w/.vscode/mcp.json' : '/home/u/.cursor/mcp.json';
  return serverConfig(name, {
    transport,
    source: { file, line: 1, column: 1, scope, folder: scope === 'workspace' ? '/w' : undefined },
    ...(transport === 'stdio' ? { args: ['evil.js'] } : { url: 'http://127.0.0.1:9/mcp' }),
  });
}

void describe('untrusted workspace', () => {
  void it('workspace servers are listed as untrusted and never connected, by start, pingNow, reconnect, enable or settings', async () => {
    const clock = new FakeClock();
    const connector = new FakeConnector(clock);
    const registry = createRegistry({
      connector,
      clock,
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
      settings: testSettings,
      workspaceTrusted: false,
    });
    const workspaceServers = [
      server('ws-stdio', 'workspace'),
      server('ws-http', 'workspace', 'http'),
      server('ws-sse', 'workspace', 'sse'),
    ];
    const user = server('user', 'user');
    registry.setServers([...workspaceServers, user], []);
    registry.start();
    await clock.advance(100);
    for (const config of workspaceServers) {
      assert.equal((await registry.pingNow(config.id)).size, 0);
      await registry.reconnect(config.id);
      registry.setEnabled(config.id, true);
    }
    // These reach the user server too, whose answers arrive on the fake clock.
    const everything = Promise.all([registry.pingNow(), registry.reconnect()]);
    await clock.advance(1_000);
    await everything;
    registry.updateSettings({ ...testSettings, timeoutMs: 1_000 });
    registry.setServers([...workspaceServers, user], []);
    await clock.advance(120_000);
    for (const config of workspaceServers) {
      assert.equal(connector.attemptsFor(config.id).length, 0, `${config.name} was contacted`);
      assert.equal(registry.get(config.id)?.state, 'untrusted');
    }
    assert.ok(connector.attemptsFor(user.id).length >= 1, 'user servers are still monitored');
    await registry.dispose();
  });

  void it('losing trust closes workspace connections at once and stops their timers; regaining it starts them', async () => {
    const clock = new FakeClock();
    const connector = new FakeConnector(clock);
    const registry = createRegistry({
      connector,
      clock,
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
      settings: testSettings,
    });
    const ws = server('ws', 'workspace');
    registry.setServers([ws, server('user', 'user')], []);
    registry.start();
    await clock.advance(100);
    assert.equal(registry.get(ws.id)?.state, 'up');
    registry.setTrusted(false);
    await clock.advance(0);
    assert.equal(registry.get(ws.id)?.state, 'untrusted');
    assert.ok(
      connector.connectionsFor(ws.id).every((c) => !c.isOpen),
      'workspace connection closed',
    );
    const attempts = connector.attemptsFor(ws.id).length;
    await clock.advance(600_000);
    assert.equal(connector.attemptsFor(ws.id).length, attempts, 'no reconnect while untrusted');
    registry.setTrusted(true);
    await clock.advance(100);
    assert.equal(registry.get(ws.id)?.state, 'up');
    await registry.dispose();
    assert.equal(clock.pendingTimers(), 0);
  });
});
