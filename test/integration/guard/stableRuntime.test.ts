// What "Guard This Server" writes, run exactly as a client runs it: `node <global storage>/bin/mcp-health-guard.js
// guard --name N -- <command>`, with `node` looked up on PATH, against server-everything, for a real v2 SDK client.
// The extension's versioned folder the copy came from is deleted (an update does that), and an update that changes the
// bundle replaces the copy under a guard that is running: that guard keeps working, and a new start runs the new copy.

import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { discover } from '../../../src/core/config/discover';
import { guardEntry } from '../../../src/core/config/guardRewrite';
import { guardedName } from '../../../src/core/guarded';
import { silentLogger } from '../../../src/core/logger';
import type { ServerConfig } from '../../../src/core/model';
import { createNodeFileSystem } from '../../../src/mcp/nodeFileSystem';
import { StableGuardRuntime } from '../../../src/mcp/stableRuntime';
import { everythingStdio } from '../../helpers/servers';
import { CLI, StderrWatch, waitUntilDead } from './support';

/** What the extension ships and copies: the guard's own bundle beside the CLI. */
const GUARD_BUNDLE = path.join(path.dirname(CLI), 'guard.js');

const root = mkdtempSync(path.join(tmpdir(), 'mcp-health-stable-'));
after(() => rmSync(root, { recursive: true, force: true }));

function extensionVersion(version: string, trailer = ''): string {
  const bundled = path.join(root, 'extensions', `mcp-health.mcp-health-${version}`, 'dist', 'guard.js');
  mkdirSync(path.dirname(bundled), { recursive: true });
  copyFileSync(GUARD_BUNDLE, bundled);
  if (trailer) writeFileSync(bundled, readFileSync(bundled, 'utf8') + trailer);
  return bundled;
}

async function launcherOf(bundled: string, bin: string) {
  const outcome = await new StableGuardRuntime(bundled, bin, silentLogger).launcher();
  assert.ok('launcher' in outcome, JSON.stringify(outcome));
  return outcome.launcher;
}

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');
}

async function connect(entry: ServerConfig) {
  // Exactly what a client does with the entry: spawn its command (bare `node`, found on PATH) and args.
  const transport = new StdioClientTransportV2({
    command: entry.command!,
    args: [...(entry.args ?? [])],
    stderr: 'pipe',
    env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
  });
  const stderr = new StderrWatch(transport.stderr as Readable);
  const client = new ClientV2(
    { name: 'stable-runtime-test', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(transport);
  return { client, stderr, guardPid: transport.pid! };
}

async function closeAll(connection: Awaited<ReturnType<typeof connect>>): Promise<void> {
  const pids = connection.stderr.upstreamPids();
  await connection.client.close();
  await waitUntilDead(connection.guardPid);
  for (const pid of pids) await waitUntilDead(pid);
}

void describe('the entry Guard This Server writes, through the stable copy of the guard runtime', () => {
  void it('starts without the extension folder it came from, and survives an update that replaces the copy', async () => {
    const bin = path.join(root, 'globalStorage', 'mcp-health.mcp-health', 'bin');
    const folder = path.join(root, 'proj');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    const file = path.join(folder, '.vscode', 'mcp.json');
    const server = everythingStdio();
    writeFileSync(
      file,
      JSON.stringify({ servers: { everything: { type: 'stdio', command: server.command, args: server.args } } }, null, 2),
    );

    const v1 = extensionVersion('0.1.0');
    const launcher = await launcherOf(v1, bin);
    writeFileSync(file, guardEntry({ text: readFileSync(file, 'utf8'), file, format: 'vscode', name: 'everything' }, launcher));
    // The update deletes the folder the copy came from: nothing in the entry points into it.
    rmSync(path.dirname(path.dirname(v1)), { recursive: true });

    const result = await discover(
      { workspaceFolders: [folder], userHome: path.join(root, 'home'), platform: process.platform, env: process.env, includeUser: false },
      createNodeFileSystem(),
    );
    const entry = result.servers.find((candidate) => candidate.name === 'everything')!;
    assert.equal(entry.command, 'node');
    assert.deepEqual(entry.args, [
      path.join(bin, 'mcp-health-guard.js'),
      'guard',
      '--name',
      'everything',
      '--',
      server.command,
      ...server.args,
    ]);
    assert.equal(guardedName(entry), 'everything', 'MCP Health sees the entry as guarded');

    const first = await connect(entry);
    try {
      assert.equal(first.client.getServerVersion()?.name, 'mcp-servers/everything');
      assert.equal(textOf(await first.client.callTool({ name: 'echo', arguments: { message: 'stable' } })), 'Echo: stable');

      // The next version's bundle differs: the copy is replaced (by rename) while this guard runs.
      const v2 = extensionVersion('0.2.0', '\n// 0.2.0\n');
      const again = await launcherOf(v2, bin);
      assert.deepEqual(again, launcher, 'the path written into the config does not change');
      assert.ok(readFileSync(path.join(bin, 'mcp-health-guard.js'), 'utf8').endsWith('// 0.2.0\n'));
      assert.equal(
        textOf(await first.client.callTool({ name: 'echo', arguments: { message: 'after the update' } })),
        'Echo: after the update',
      );

      // A client that starts the same entry now runs the new copy.
      const second = await connect(entry);
      try {
        assert.equal(textOf(await second.client.callTool({ name: 'echo', arguments: { message: 'new guard' } })), 'Echo: new guard');
      } finally {
        await closeAll(second);
      }
    } finally {
      await closeAll(first);
    }
  });
});
