// `mcp-health guard --url`: stdio towards a real v1 SDK client, the SDK's HTTP transports towards real servers.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { everythingStdio, FIXTURES, startEverythingHttp, startFaultHttp } from '../../helpers/servers';
import { CLI, recording, StderrWatch, waitUntilDead } from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function guardTransport(flags: string[]) {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'guard', ...flags],
    stderr: 'pipe',
    env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
  });
  const stderr = new StderrWatch(inner.stderr as Readable);
  return { inner, stderr, ...recording(inner) };
}

async function connect(flags: string[]) {
  const { inner, stderr, transport, closed } = guardTransport(flags);
  const client = new Client({ name: 'guard-http-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = inner.pid!;
  cleanups.push(async () => {
    await client.close();
    await waitUntilDead(pid);
  });
  return { client, stderr, closed };
}

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');
}

void describe('guard over Streamable HTTP', () => {
  void it('passes server-everything through (127.0.0.1) with its own initialize result', async () => {
    const server = await startEverythingHttp('streamableHttp');
    cleanups.push(() => server.stop());
    const session = await connect(['--url', server.url]);
    assert.equal(session.client.getServerVersion()?.name, 'mcp-servers/everything');
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'http' } })), 'Echo: http');
  });

  void it('passes server-everything through over legacy HTTP+SSE (--sse)', async () => {
    const server = await startEverythingHttp('sse');
    cleanups.push(() => server.stop());
    const session = await connect(['--url', server.url, '--sse']);
    assert.equal(session.client.getServerVersion()?.name, 'mcp-servers/everything');
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'sse' } })), 'Echo: sse');
  });

  void it('starts a new session and replays the handshake when the server forgets the session (404), without failing a call', async () => {
    const server = await startFaultHttp('http', 'expire-session:3');
    cleanups.push(() => server.stop());
    const session = await connect(['--url', server.url]);
    for (let i = 0; i < 8; i++) {
      assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: `m${i}` } })), `Echo: m${i}`);
    }
    await session.stderr.waitFor(/upstream session expired \(HTTP 404\); restarting/);
    assert.equal(session.closed(), false);
  });

  void it('refuses a server that demands authorization, once, and closes instead of retrying', async () => {
    const server = await startFaultHttp('http', 'status:401');
    cleanups.push(() => server.stop());
    const { inner, stderr, transport } = guardTransport(['--url', server.url]);
    const client = new Client({ name: 'guard-http-test', version: '1.0.0' });
    await assert.rejects(client.connect(transport));
    await stderr.waitFor(/HTTP 401: it demands authorization\. The guard does not do OAuth/);
    const pid = inner.pid;
    if (pid) await waitUntilDead(pid);
    assert.equal(stderr.all.match(/HTTP 401/g)?.length, 1, 'reported once, never retried');
    await client.close();
  });
});

void describe('guard over Streamable HTTP, server-everything losing its sessions', () => {
  /** server-everything on 127.0.0.1 at a given port (the preload forces the host), so it can come back on the same one. */
  async function everythingOn(port: number): Promise<{ port: number; stop: () => Promise<void> }> {
    const entry = everythingStdio().args[0]!;
    const child = spawn(process.execPath, ['-r', path.join(FIXTURES, 'localhost-preload.cjs'), entry, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let text = '';
    const listening = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${text}`)), 15_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const match = /LISTENING (\d+)/.exec(text);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
    });
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    };
    return { port: listening, stop };
  }

  void it('starts a new session and replays the handshake after the server restarted and forgot every session', async () => {
    let server = await everythingOn(0);
    cleanups.push(() => server.stop());
    const session = await connect(['--url', `http://127.0.0.1:${server.port}/mcp`]);
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'one' } })), 'Echo: one');
    await server.stop();
    server = await everythingOn(server.port);
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'two' } })), 'Echo: two');
    await session.stderr.waitFor(/upstream session expired \(HTTP (400|404)\); restarting/);
    assert.equal(session.closed(), false);
  });
});
