// Issue 19 §1, reproduced through the real discovery and the real connector: a repository the user has not trusted
// plants node_modules/<pkg>/bin (and node_modules/.bin) that writes a marker. A consented user-level `npx <pkg>` entry
// without `cwd`, and a bare command that exists only in the folder's node_modules/.bin, must not run it in a
// Restricted Mode window. npx runs with --no-install and npm's offline mode, so nothing is ever downloaded.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { discover } from '../../../src/core/config/discover';
import type { ServerConfig } from '../../../src/core/model';
import { createNodeConnector } from '../../../src/mcp';
import { createNodeFileSystem } from '../../../src/mcp/nodeFileSystem';

const PKG = 'mcp-health-planted-server';
const CONNECT_MS = 20_000;

void describe('a user-level server in a window whose folder is not trusted', { skip: process.platform === 'win32' }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'mcp-health-untrusted-'));
  const repo = path.join(root, 'repo');
  const home = path.join(root, 'home');
  const userDir = path.join(home, '.config', 'Code', 'User');
  const marker = (name: string) => path.join(root, `${name}.ran`);
  const connector = createNodeConnector();

  before(() => {
    const bin = path.join(repo, 'node_modules', PKG, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(repo, 'node_modules', PKG, 'package.json'),
      JSON.stringify({ name: PKG, version: '1.0.0', bin: { [PKG]: 'bin/run.js' } }),
    );
    writeFileSync(
      path.join(bin, 'run.js'),
      '#!/usr/bin/env node\nrequire("node:fs").writeFileSync(process.env.PLANTED_MARKER, process.cwd());\n',
    );
    chmodSync(path.join(bin, 'run.js'), 0o755);
    mkdirSync(path.join(repo, 'node_modules', '.bin'));
    symlinkSync(path.join('..', PKG, 'bin', 'run.js'), path.join(repo, 'node_modules', '.bin', PKG));
    mkdirSync(userDir, { recursive: true });
    const offline = { npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_cache: path.join(root, 'npm-cache') };
    writeFileSync(
      path.join(userDir, 'mcp.json'),
      JSON.stringify({
        servers: {
          // The ordinary `npx -y <pkg>` entry, made unable to download anything.
          'npx-style': { command: 'npx', args: ['--no-install', PKG], env: { ...offline, PLANTED_MARKER: marker('npx-style') } },
          // A relative PATH entry (common: ./node_modules/.bin) would make execvp look in the cwd.
          'bare-name': {
            command: PKG,
            env: { PATH: `node_modules/.bin:.:${process.env.PATH ?? ''}`, PLANTED_MARKER: marker('bare-name') },
          },
        },
      }),
    );
  });

  after(() => {
    connector.dispose?.();
    rmSync(root, { recursive: true, force: true });
  });

  async function servers(workspaceTrusted: boolean): Promise<Map<string, ServerConfig>> {
    const result = await discover(
      {
        workspaceFolders: [repo],
        userHome: home,
        vscodeUserDir: userDir,
        platform: process.platform,
        env: { PATH: process.env.PATH, HOME: home },
        includeUser: true,
        workspaceTrusted,
      },
      createNodeFileSystem(),
    );
    return new Map(result.servers.filter((server) => server.source.scope === 'user').map((server) => [server.name, server]));
  }

  /** Connecting fails (the planted script is no MCP server, and the real one is not installed): only the marker matters. */
  async function start(server: ServerConfig | undefined): Promise<void> {
    assert.ok(server, 'discovered');
    await connector.connect(server, { timeoutMs: CONNECT_MS }).then(
      (connection) => connection.close(),
      () => undefined,
    );
  }

  void it("runs none of the folder's code: npx finds no local package, a bare name is not looked up in the cwd", async () => {
    const found = await servers(false);
    assert.equal(found.get('npx-style')?.cwd, home, 'an untrusted window gives a user-level server the home folder');
    assert.equal(found.get('npx-style')?.reachesWorkspace, undefined);
    await start(found.get('npx-style'));
    await start(found.get('bare-name'));
    assert.equal(existsSync(marker('npx-style')), false, "npx ran the untrusted folder's node_modules bin");
    assert.equal(existsSync(marker('bare-name')), false, 'a bare command was found in the untrusted folder');
  });

  void it("in a trusted window runs in the folder, as VS Code does; a bare name still comes from PATH's absolute entries only", async () => {
    const found = await servers(true);
    assert.equal(found.get('npx-style')?.cwd, repo);
    await start(found.get('npx-style'));
    // The fixture is live: npx does run the folder's package once the user trusts the folder.
    assert.equal(existsSync(marker('npx-style')), true, 'the planted package ran in the trusted folder');
    await start(found.get('bare-name'));
    assert.equal(existsSync(marker('bare-name')), false, 'a bare command was resolved against the cwd');
  });
});
