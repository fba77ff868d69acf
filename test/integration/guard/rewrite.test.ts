// "Guard This Server" for real: the rewritten .vscode/mcp.json entry is read back by discovery, the command it names
// is started, and a real v2 SDK client completes the handshake and tool calls through the guard; Unguard then gives
// the original file back.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { discover } from '../../../src/core/config/discover';
import { guardEntry, unguardEntry } from '../../../src/core/config/guardRewrite';
import { guardedName } from '../../../src/core/guarded';
import type { ServerConfig } from '../../../src/core/model';
import { createNodeFileSystem } from '../../../src/mcp/nodeFileSystem';
import { everythingStdio } from '../../helpers/servers';
import { CLI, StderrWatch, waitUntilDead } from './support';

const root = mkdtempSync(path.join(tmpdir(), 'mcp-health-rewrite-'));
after(() => rmSync(root, { recursive: true, force: true }));

// The entry names the CLI the way an installed extension would: through a folder called mcp-health.
const installed = path.join(root, 'mcp-health');
symlinkSync(path.dirname(path.dirname(CLI)), installed);
const launcher = { command: process.execPath, args: [path.join(installed, 'dist', 'cli.js'), 'guard'] };

async function discoverWorkspace(folder: string): Promise<ServerConfig[]> {
  const result = await discover(
    { workspaceFolders: [folder], userHome: path.join(root, 'home'), platform: process.platform, env: process.env, includeUser: false },
    createNodeFileSystem(),
  );
  assert.deepEqual(
    result.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  return result.servers;
}

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');
}

void describe('Guard This Server on a real .vscode/mcp.json', () => {
  void it('the rewritten entry runs server-everything through the guard for a v2 client, and Unguard restores the file', async () => {
    const folder = path.join(root, 'proj');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    const file = path.join(folder, '.vscode', 'mcp.json');
    const server = everythingStdio();
    const original = [
      '{',
      '  // the servers of this project',
      '  "servers": {',
      '    "everything": {',
      '      "type": "stdio",',
      `      "command": ${JSON.stringify(server.command)}, // node`,
      `      "args": [${server.args.map((arg) => JSON.stringify(arg)).join(', ')}],`,
      '    },',
      '    "other": { "command": "does-not-run" },',
      '  },',
      '}',
      '',
    ].join('\n');
    writeFileSync(file, original);

    writeFileSync(file, guardEntry({ text: original, file, format: 'vscode', name: 'everything' }, launcher));
    const servers = await discoverWorkspace(folder);
    const entry = servers.find((candidate) => candidate.name === 'everything')!;
    assert.equal(guardedName(entry), 'everything');
    assert.equal(entry.command, process.execPath);
    assert.deepEqual(entry.args, [...launcher.args, '--name', 'everything', '--', server.command, ...server.args]);
    assert.deepEqual(servers.find((candidate) => candidate.name === 'other')?.command, 'does-not-run');

    // Exactly what a client does with the entry: spawn its command and args.
    const transport = new StdioClientTransportV2({
      command: entry.command!,
      args: entry.args ?? [],
      stderr: 'pipe',
      env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
    });
    const stderr = new StderrWatch(transport.stderr as Readable);
    const client = new ClientV2({ name: 'rewrite-test-v2', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    const guardPid = transport.pid!;
    try {
      assert.equal(client.getServerVersion()?.name, 'mcp-servers/everything');
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'guarded' } })), 'Echo: guarded');
      // It is the guard that runs the server: it survives the server's death for the same client.
      process.kill(stderr.upstreamPids()[0]!, 'SIGKILL');
      await stderr.waitForGeneration(2);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'after a crash' } })), 'Echo: after a crash');
    } finally {
      const pids = stderr.upstreamPids();
      await client.close();
      await waitUntilDead(guardPid);
      for (const pid of pids) await waitUntilDead(pid);
    }

    writeFileSync(file, unguardEntry({ text: readFileSync(file, 'utf8'), file, format: 'vscode', name: 'everything' }));
    assert.equal(readFileSync(file, 'utf8'), original);
    const restored = (await discoverWorkspace(folder)).find((candidate) => candidate.name === 'everything')!;
    assert.equal(guardedName(restored), null);
    assert.deepEqual([restored.command, restored.args], [server.command, server.args]);
  });
});
