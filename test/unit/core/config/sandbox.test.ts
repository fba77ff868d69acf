import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../../../src/core/config/discover';
import { definitionHash, definitionParts } from '../../../../src/core/consent/definitionHash';
import type { ConfigFormat, SandboxPolicy, ServerConfig } from '../../../../src/core/model';
import { sandboxRuntimeConfig } from '../../../../src/core/sandbox';
import { brief, parseContext } from './helpers';

const FILE = '/work/proj/.vscode/mcp.json';

function parse(document: unknown, format: ConfigFormat = 'vscode') {
  return parseConfigText(JSON.stringify(document), FILE, format, parseContext({ env: { HOME: '/home/u' } }));
}

function only(servers: readonly ServerConfig[]): ServerConfig {
  assert.equal(servers.length, 1);
  return servers[0]!;
}

const POLICY = {
  filesystem: { allowWrite: ['${workspaceFolder}/out'], denyRead: ['~/.ssh'], denyWrite: ['/etc'] },
  network: { allowedDomains: ['*.example.test'], deniedDomains: ['bad.example.test'] },
};

void describe('VS Code sandbox keys', () => {
  void it('reads sandboxEnabled with the server\'s own "sandbox" block, variables resolved', () => {
    const { servers, diagnostics } = parse({ servers: { s: { command: 'node', args: ['x.js'], sandboxEnabled: true, sandbox: POLICY } } });
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(only(servers).sandbox, {
      filesystem: { allowWrite: ['/work/proj/out'], denyRead: ['~/.ssh'], denyWrite: ['/etc'] },
      network: { allowedDomains: ['*.example.test'], deniedDomains: ['bad.example.test'] },
    });
  });

  void it('takes the file\'s top-level "sandbox" for a sandboxed server without its own (older VS Code)', () => {
    const { servers } = parse({
      sandbox: { filesystem: { denyRead: ['/secret'] } },
      servers: { s: { command: 'node', sandboxEnabled: true } },
    });
    assert.deepEqual(only(servers).sandbox, {
      filesystem: { allowWrite: [], denyRead: ['/secret'], denyWrite: [] },
      network: { allowedDomains: [], deniedDomains: [] },
    });
  });

  void it('is off without sandboxEnabled, or with it false, even when a block is there', () => {
    assert.equal(only(parse({ servers: { s: { command: 'node', sandbox: POLICY } } }).servers).sandbox, undefined);
    assert.equal(only(parse({ servers: { s: { command: 'node', sandboxEnabled: false, sandbox: POLICY } } }).servers).sandbox, undefined);
  });

  void it('reads the same keys in settings.json "mcp", and in no other client\'s format', () => {
    const settings = parseConfigText(
      JSON.stringify({ mcp: { servers: { s: { command: 'node', sandboxEnabled: true } } } }),
      FILE,
      'vscode-settings',
      parseContext(),
    );
    assert.ok(only(settings.servers).sandbox);
    const cursor = parseConfigText(
      JSON.stringify({ mcpServers: { s: { command: 'node', sandboxEnabled: true, sandbox: POLICY } } }),
      FILE,
      'cursor',
      parseContext(),
    );
    assert.equal(only(cursor.servers).sandbox, undefined);
  });

  void it('refuses an unreadable policy: the server is not loaded (config error), never run without it', () => {
    const { servers, diagnostics } = parse({
      servers: {
        flag: { command: 'node', sandboxEnabled: 'yes' },
        block: { command: 'node', sandboxEnabled: true, sandbox: ['x'] },
        list: { command: 'node', sandboxEnabled: true, sandbox: { filesystem: { allowWrite: '/tmp' } } },
        item: { command: 'node', sandboxEnabled: true, sandbox: { network: { allowedDomains: ['a', 3] } } },
        fine: { command: 'node', sandboxEnabled: true },
      },
    });
    assert.deepEqual(
      servers.map((server) => server.name),
      ['fine'],
    );
    assert.deepEqual(
      diagnostics.map((d) => [d.serverName, d.severity]),
      [
        ['flag', 'error'],
        ['block', 'error'],
        ['list', 'error'],
        ['item', 'error'],
      ],
    );
    assert.match(diagnostics[0]!.message, /"sandboxEnabled" of server "flag" must be true or false/);
    assert.match(diagnostics[2]!.message, /"filesystem.allowWrite" in "sandbox" of server "list" must be an array of strings/);
  });
});

void describe('sandboxRuntimeConfig: the policy the runtime gets, as VS Code builds it', () => {
  const policy: SandboxPolicy = {
    filesystem: { allowWrite: ['/custom/write'], denyRead: ['/secret'], denyWrite: ['/readonly'] },
    network: { allowedDomains: ['example.com'], deniedDomains: ['denied.example.com'] },
  };

  void it('adds ~/.npm and the cwd to allowWrite and the default domains to allowedDomains, keeps the denials', () => {
    assert.deepEqual(sandboxRuntimeConfig(policy, '/workspace/project', ['registry.example']), {
      network: { allowedDomains: ['example.com', 'registry.example'], deniedDomains: ['denied.example.com'] },
      filesystem: { allowWrite: ['/custom/write', '~/.npm', '/workspace/project'], denyRead: ['/secret'], denyWrite: ['/readonly'] },
    });
  });

  void it('without a cwd or defaults adds only ~/.npm, and never lists a path twice', () => {
    const twice: SandboxPolicy = { ...policy, filesystem: { ...policy.filesystem, allowWrite: ['~/.npm', '/a', '/a'] } };
    assert.deepEqual(sandboxRuntimeConfig(twice, undefined, []).filesystem.allowWrite, ['~/.npm', '/a']);
    assert.deepEqual(sandboxRuntimeConfig(twice, '  ', []).network.allowedDomains, ['example.com']);
  });
});

void describe('consent covers the sandbox', () => {
  const key = new Uint8Array(32).fill(7);
  const base = (sandbox?: unknown) =>
    only(parse({ servers: { s: { command: 'node', ...(sandbox === undefined ? {} : { sandboxEnabled: true, sandbox }) } } }).servers);

  void it('a changed sandbox block, or the sandbox turned off, is a new definition', () => {
    const sandboxed = definitionHash(base(POLICY), key);
    const wider = definitionHash(base({ ...POLICY, filesystem: { ...POLICY.filesystem, allowWrite: ['/'] } }), key);
    const off = definitionHash(base(), key);
    assert.notEqual(sandboxed, wider, 'a wider allowWrite asks again');
    assert.notEqual(sandboxed, off, 'dropping sandboxEnabled asks again');
  });

  void it('adds a sandbox part only to a sandboxed definition', () => {
    // No new part for the others, so the consents stored for unsandboxed servers stay valid.
    assert.equal('sandbox' in definitionParts(base(), key), false);
    assert.equal(typeof definitionParts(base(POLICY), key).sandbox, 'string');
  });
});
