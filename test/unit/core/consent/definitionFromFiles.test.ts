// Issue 19 §2 through the real parsing and discovery: consent follows the env values of a workspace file and of its
// envFile, and a supplied `${input:}` value does not make an allowed server ask again.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discover, parseConfigText } from '../../../../src/core/config/discover';
import { ConsentStore, type ConsentStorage } from '../../../../src/core/consent/consentStore';
import type { Logger } from '../../../../src/core/logger';
import type { ServerConfig } from '../../../../src/core/model';
import { describeChanges } from '../../../../src/present/consentModel';
import { discoveryOptions, memoryFs, parseContext } from '../config/helpers';

const KEY = Buffer.alloc(32, 3);
const MCP_JSON = '/work/proj/.vscode/mcp.json';
const none = () => undefined;
const logger: Logger = { trace: none, debug: none, info: none, warn: none, error: none };

function storage(): ConsentStorage {
  let value: unknown;
  return {
    get: () => value,
    update: (_key, next) => {
      value = next;
      return Promise.resolve();
    },
  };
}

async function workspaceServer(mcpJson: object, dotEnv: string): Promise<ServerConfig> {
  const fs = memoryFs({ [MCP_JSON]: JSON.stringify(mcpJson), '/work/proj/.env': dotEnv });
  const { servers } = await discover(discoveryOptions({ includeUser: false }), fs);
  const found = servers.find((candidate) => candidate.name === 'srv');
  assert.ok(found, 'discovered');
  return found;
}

void describe('consent and the values a workspace file sets', () => {
  const entry = (nodeOptions: string) => ({
    servers: { srv: { command: 'node', args: ['server.js'], env: { NODE_OPTIONS: nodeOptions }, envFile: '${workspaceFolder}/.env' } },
  });

  void it('asks again when a commit changes an env value, in `env` or in the envFile, and says which', async () => {
    const store = new ConsentStore(storage(), logger, () => KEY);
    const allowed = await workspaceServer(entry('--max-old-space-size=512'), 'PYTHONPATH=/opt/lib\nAPI_TOKEN=tok-1\n');
    await store.allow([allowed]);
    assert.equal(store.isAllowed(await workspaceServer(entry('--max-old-space-size=512'), 'PYTHONPATH=/opt/lib\nAPI_TOKEN=tok-1\n')), true);

    const viaEnv = await workspaceServer(entry('--require ./x.js'), 'PYTHONPATH=/opt/lib\nAPI_TOKEN=tok-1\n');
    assert.equal(store.isAllowed(viaEnv), false);
    assert.equal(describeChanges(store.changes(viaEnv) ?? []), 'Changed since you allowed it: NODE_OPTIONS changed.');

    const viaEnvFile = await workspaceServer(entry('--max-old-space-size=512'), 'PYTHONPATH=./evil\nAPI_TOKEN=tok-1\nLD_PRELOAD=./x.so\n');
    assert.equal(store.isAllowed(viaEnvFile), false);
    assert.equal(describeChanges(store.changes(viaEnvFile) ?? []), 'Changed since you allowed it: LD_PRELOAD added, PYTHONPATH changed.');
  });

  void it('does not ask again after the user supplies an input the definition uses', () => {
    const text = JSON.stringify({
      inputs: [{ id: 'token', type: 'promptString', password: true }],
      servers: { srv: { command: 'npx', args: ['-y', 'server', '--token', '${input:token}'], env: { API_KEY: '${input:token}' } } },
    });
    const read = (inputs?: Record<string, string>) =>
      parseConfigText(text, MCP_JSON, 'vscode', parseContext(inputs ? { inputs } : {})).servers[0] as ServerConfig;
    const waiting = read();
    assert.deepEqual(waiting.missingInputs, ['token']);
    const store = new ConsentStore(storage(), logger, () => KEY);
    return store.allow([waiting]).then(() => {
      const supplied = read({ token: 'tok-secret-1234' });
      assert.deepEqual(supplied.args, ['-y', 'server', '--token', 'tok-secret-1234'], 'the value is used to run it');
      assert.equal(store.isAllowed(supplied), true, 'supplying the input asked for consent again');
      assert.equal(store.isAllowed(read({ token: 'tok-other-5678' })), true);
    });
  });
});
