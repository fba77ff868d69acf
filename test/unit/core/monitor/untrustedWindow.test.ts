// Issue 19 §1: in a Restricted Mode window a consented user-level server never reaches into the untrusted folder.
// Without `cwd` it runs in the home folder (same consent); an entry that names a path in the folder itself is gated.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfigText } from '../../../../src/core/config/discover';
import { definitionHash } from '../../../../src/core/consent/definitionHash';
import type { ServerConfig } from '../../../../src/core/model';
import { gateFor, type GateInputs } from '../../../../src/core/monitor/gate';
import { parseContext } from '../config/helpers';
import { harness, INTERVAL_MS, stateOf } from './harness';

const USER_FILE = '/home/u/.config/Code/User/mcp.json';
const TEXT = JSON.stringify({
  servers: {
    plain: { command: 'npx', args: ['-y', 'some-server'] },
    pinned: { command: 'npx', args: ['-y', 'some-server'], cwd: '/srv/tools' },
    script: { command: 'node', args: ['${workspaceFolder}/tools/server.js'] },
    relative: { command: 'node', args: ['server.js'], cwd: '${workspaceFolder}' },
  },
});

function userServers(workspaceTrusted: boolean): Map<string, ServerConfig> {
  const context = parseContext({ scope: 'user', folder: undefined, workspaceTrusted });
  const { servers } = parseConfigText(TEXT, USER_FILE, 'vscode', context);
  return new Map(servers.map((server) => [server.name, server]));
}

const open: GateInputs = { configError: null, userDisabled: false, workspaceTrusted: false, consented: true, mode: 'watch' };

void describe('user-level servers in an untrusted window', () => {
  void it('run in the home folder when their entry gives no cwd, with the consent they already have', () => {
    const untrusted = userServers(false);
    const trusted = userServers(true);
    assert.equal(trusted.get('plain')?.cwd, '/work/proj', 'a trusted window: the first folder, as VS Code does');
    assert.equal(untrusted.get('plain')?.cwd, '/home/u');
    const key = Buffer.alloc(32, 1);
    assert.equal(
      definitionHash(untrusted.get('plain') as ServerConfig, key),
      definitionHash(trusted.get('plain') as ServerConfig, key),
      'moving to home asks nothing again',
    );
    assert.equal(untrusted.get('pinned')?.cwd, '/srv/tools', "an explicit cwd is the user's own choice");
  });

  void it('are gated as untrusted when the entry itself names a path in the folder, and released once trusted', () => {
    const untrusted = userServers(false);
    for (const name of ['script', 'relative']) {
      const config = untrusted.get(name) as ServerConfig;
      assert.equal(config.reachesWorkspace, true, name);
      assert.equal(gateFor(config, open)?.state, 'untrusted', name);
      assert.equal(gateFor(config, { ...open, workspaceTrusted: true }), null, name);
    }
    for (const name of ['plain', 'pinned']) {
      assert.equal(gateFor(untrusted.get(name) as ServerConfig, open), null, name);
    }
  });

  void it('the registry never connects one that reaches into the folder until trust is granted', async () => {
    const h = harness({ workspaceTrusted: false });
    const untrusted = userServers(false);
    const reaching = untrusted.get('script') as ServerConfig;
    const plain = untrusted.get('plain') as ServerConfig;
    h.registry.setServers([reaching, plain], []);
    h.registry.start();
    await h.clock.advance(INTERVAL_MS);
    assert.equal(stateOf(h, reaching.id), 'untrusted');
    assert.equal(h.connector.attemptsFor(reaching.id).length, 0);
    assert.equal(stateOf(h, plain.id), 'up');
    h.registry.setTrusted(true);
    await h.clock.advance(0);
    assert.equal(stateOf(h, reaching.id), 'up');
    await h.registry.dispose();
  });
});
