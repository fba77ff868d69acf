// The rule for which configured env and header values are secret, value by value, and its use in discovery.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cannotBeSecret, plainlyNotSecret, withConfiguredSecrets } from '../../../../src/core/config/configuredSecrets';
import { discover } from '../../../../src/core/config/discover';
import type { ServerConfig } from '../../../../src/core/model';
import { discoveryOptions, memoryFs } from './helpers';

const EXISTING = new Set(['/usr/bin', '/usr/local/bin', '/home/dev/project', 'C:\\Tools']);
const pathExists = (path: string) => Promise.resolve(EXISTING.has(path));

void describe('which configured values can be secrets', () => {
  const table: readonly [value: string, secret: boolean, why: string][] = [
    ['ghp_1234567890abcdefABCDEF', true, 'a token'],
    ['postgres://user:pw@host/db', true, 'a URL with credentials'],
    ['https://api.example.test', true, 'a URL: masked too, the rule does not judge URLs'],
    ['hunter2', true, 'a word with a digit'],
    ['SuperSecret', true, 'an inner capital'],
    ['correcthorsebattery', true, 'a letter run over 12'],
    ['one-two-three', true, 'three runs'],
    ['12345678901', true, 'eleven digits'],
    ['/no/such/path', true, 'a path that does not exist'],
    ['/usr/bin:/no/such', true, 'a list with a missing entry'],
    ['relative/dir', false, 'two plain runs joined by a slash'],
    ['abc', false, 'shorter than four characters'],
    ['', false, 'empty'],
    ['true', false, 'boolean'],
    ['OFF', false, 'boolean'],
    ['3000', false, 'number'],
    ['-1.5', false, 'number'],
    ['1234567890', false, 'ten digits'],
    ['production', false, 'plain word'],
    ['DEBUG', false, 'upper-case word'],
    ['Info', false, 'capitalised word'],
    ['eu-west', false, 'two runs'],
    ['application/json', false, 'a media type'],
    ['/usr/bin', false, 'an existing path'],
    ['/usr/local/bin:/usr/bin', false, 'a PATH-like list of existing paths'],
    ['C:\\Tools', false, 'an existing Windows path, colon and all'],
  ];
  for (const [value, secret, why] of table) {
    void it(`${JSON.stringify(value)} is ${secret ? 'secret' : 'not secret'} (${why})`, async () => {
      assert.equal(await cannotBeSecret(value, pathExists), !secret);
    });
  }

  void it('without a way to check paths, a path stays secret', async () => {
    assert.equal(await cannotBeSecret('/usr/bin'), false);
    assert.equal(plainlyNotSecret('/usr/bin'), false);
  });
});

function stdio(env: Record<string, string>, headers?: Record<string, string>): ServerConfig {
  return {
    id: 'f#s',
    name: 's',
    transport: headers ? 'http' : 'stdio',
    source: { file: '/w/.vscode/mcp.json', line: 1, column: 1, format: 'vscode', scope: 'workspace' },
    env,
    ...(headers ? { headers } : {}),
  };
}

void describe('withConfiguredSecrets', () => {
  void it('adds every env value the name filter misses, and what it carries inside', async () => {
    const server = await withConfiguredSecrets(
      stdio({
        GITHUB_PAT: 'ghp_abcdef123456',
        DATABASE_URL: 'postgres://user:pw0rd1@host/db',
        PORT: '8080',
        MODE: 'production',
        HOME_DIR: '/usr/bin',
      }),
      pathExists,
    );
    assert.deepEqual(new Set(server.secretValues), new Set(['ghp_abcdef123456', 'postgres://user:pw0rd1@host/db', 'pw0rd1']));
  });

  void it('adds every header value, the credential after its scheme and the password of Basic credentials', async () => {
    const basic = Buffer.from('bot:b4sic-pass').toString('base64');
    const server = await withConfiguredSecrets(
      stdio({}, { 'X-Org': 'org_42abc', Authorization: `Basic ${basic}`, Accept: 'application/json' }),
    );
    assert.deepEqual(new Set(server.secretValues), new Set(['org_42abc', `Basic ${basic}`, basic, 'bot:b4sic-pass', 'b4sic-pass']));
  });

  void it('keeps the secrets discovery already found', async () => {
    const server = await withConfiguredSecrets({ ...stdio({ A: 'x1y2z3w4' }), secretValues: ['from-input-9'] });
    assert.deepEqual(server.secretValues, ['from-input-9', 'x1y2z3w4']);
  });
});

void describe('discovery marks configured values secret', () => {
  void it('GITHUB_PAT, DATABASE_URL, a URL password with a raw @ and any header', async () => {
    const config = JSON.stringify({
      servers: {
        local: {
          command: 'node',
          args: ['s.js'],
          env: { GITHUB_PAT: 'ghp_PatValue0001', DATABASE_URL: 'postgres://user:DbPass0002@host/db', LOG: 'debug' },
        },
        remote: { type: 'http', url: 'https://user:p@ss@w0rd@example.invalid/mcp', headers: { 'X-Custom': 'custom-Header-0003' } },
      },
    });
    const result = await discover(discoveryOptions({ workspaceFolders: ['/w'] }), memoryFs({ '/w/.vscode/mcp.json': config }));
    const secrets = new Map(result.servers.map((server) => [server.name, new Set(server.secretValues)]));
    assert.ok(secrets.get('local')?.has('ghp_PatValue0001'));
    assert.ok(secrets.get('local')?.has('postgres://user:DbPass0002@host/db'));
    assert.ok(secrets.get('local')?.has('DbPass0002'));
    assert.ok(!secrets.get('local')?.has('debug'));
    assert.ok(
      secrets.get('remote')?.has('p@ss@w0rd'),
      `the whole password, raw @ included: ${[...(secrets.get('remote') ?? [])].join(', ')}`,
    );
    assert.ok(secrets.get('remote')?.has('custom-Header-0003'));
  });
});
