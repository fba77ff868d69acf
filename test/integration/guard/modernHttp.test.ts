// `mcp-health guard --url` in front of a 2026-07-28 server over Streamable HTTP, driven by the real v2 client in auto
// negotiation. That era has no sessions, no initialize and no ping (protocol.md): the guard must keep the connection
// alive with `server/discover`, let the client's own requests (with their `_meta` envelope and the
// MCP-Protocol-Version / Mcp-Method headers) through, and when the server goes away and comes back at the same URL,
// carry on without a handshake to replay: it checks with `server/discover` that the version is still offered.

import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startModernHttp, type RunningServer } from '../../helpers/servers';
import { waitFor } from '../../helpers/wait';
import { CLI, recording, StderrWatch, waitUntilDead } from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(url: string, flags: string[] = []) {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'guard', ...flags, '--url', url],
    stderr: 'pipe',
    env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
  });
  const stderr = new StderrWatch(inner.stderr as Readable);
  const { transport, received, closed } = recording(inner);
  const client = new Client({ name: 'guard-modern-http', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  const pid = inner.pid!;
  cleanups.push(async () => {
    await client.close();
    await waitUntilDead(pid);
  });
  return { client, stderr, received, closed };
}

async function echo(client: Client, message: string): Promise<string> {
  const result = (await client.callTool({ name: 'echo', arguments: { message } })) as { content: Array<{ text?: string }> };
  return result.content.map((part) => part.text ?? '').join('');
}

/** Anything of the guard's own that reached the client: its probe ids or a ping. */
function guardMessages(received: unknown[]): unknown[] {
  return received.filter(
    (message) => JSON.stringify(message).includes('mcp-health-guard') || (message as { method?: string }).method === 'ping',
  );
}

void describe('guard over Streamable HTTP, a 2026-07-28 server', () => {
  void it('passes the modern era through and keeps the connection alive with server/discover, never ping', async () => {
    const server = await startModernHttp();
    cleanups.push(() => server.stop());
    const session = await connect(server.url, ['--interval-ms', '1000', '--timeout-ms', '3000']);
    assert.equal(session.client.getProtocolEra(), 'modern');
    assert.equal(await echo(session.client, 'modern'), 'Echo: modern');
    // Idle for longer than the interval: probes go out, are answered, and stay inside the guard.
    await session.stderr.waitFor(/keepalive server\/discover answered/);
    await session.stderr.waitFor(/keepalive server\/discover \S+ sent[\s\S]*keepalive server\/discover \S+ sent/);
    assert.doesNotMatch(session.stderr.all, /keepalive ping/);
    assert.doesNotMatch(session.stderr.all, /answered the keepalive|restarting/);
    assert.equal(await echo(session.client, 'after probes'), 'Echo: after probes');
    assert.deepEqual(guardMessages(session.received), []);
    assert.equal(session.closed(), false);
  });

  void it('carries on when the server went away and came back at the same URL: no session to lose, nothing to replay but a discover', async () => {
    let server: RunningServer = await startModernHttp();
    cleanups.push(() => server.stop());
    const session = await connect(server.url);
    assert.equal(await echo(session.client, 'one'), 'Echo: one');
    const port = server.port;
    await server.stop();
    server = await startModernHttp(port);
    // Stateless: the restarted server serves the very next request as it served the first.
    assert.equal(await echo(session.client, 'two'), 'Echo: two');
    assert.doesNotMatch(session.stderr.all, /restarting/, 'nothing was lost, so nothing restarted');
    // Down for good while the client asks: the call fails with the cause named, and the guard brings the upstream
    // back (a server/discover that still offers the version) once the server is there again.
    await server.stop();
    await assert.rejects(echo(session.client, 'while down'), /upstream .* failed: .*restarting/);
    server = await startModernHttp(port);
    // Ready again when the guard tells the client to refetch its tools (it does so once a new upstream is in place).
    await waitFor(
      'the list_changed notification at the client',
      () => session.received.some((message) => (message as { method?: string }).method === 'notifications/tools/list_changed'),
      20_000,
      25,
    );
    assert.match(session.stderr.all, /upstream started \(pid unknown, generation 2\)/);
    assert.equal(await echo(session.client, 'three'), 'Echo: three');
    assert.equal(session.closed(), false);
    assert.deepEqual(guardMessages(session.received), []);
  });
});
