// `mcp-health guard --url` behind an HTTP proxy: the guard reads HTTP_PROXY / HTTPS_PROXY / NO_PROXY as the rest of the
// CLI does, and reaches loopback directly. The server "elsewhere" is a host name under .invalid that only the proxy on
// 127.0.0.1 can reach, so a guard that ignored the proxy could not even start its session.

import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CountingProxy, ELSEWHERE } from '../../helpers/countingProxy';
import { startFaultHttp, type RunningServer } from '../../helpers/servers';
import { CLI, StderrWatch, waitUntilDead } from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(url: string, env: Record<string, string>) {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'guard', '--url', url],
    stderr: 'pipe',
    // Only the proxy variables the test sets: none inherited from the machine.
    env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1', ...env },
  });
  const stderr = new StderrWatch(inner.stderr as Readable);
  const client = new Client({ name: 'guard-proxy-test', version: '1.0.0' });
  await client.connect(inner);
  const pid = inner.pid!;
  cleanups.push(async () => {
    await client.close();
    await waitUntilDead(pid);
  });
  return { client, stderr };
}

async function echo(client: Client, message: string): Promise<string> {
  const result = (await client.callTool({ name: 'echo', arguments: { message } })) as { content: Array<{ text?: string }> };
  return result.content[0]?.text ?? '';
}

void describe('guard over HTTP through a proxy', () => {
  const proxy = new CountingProxy();
  let server: RunningServer;
  before(async () => {
    await proxy.listen();
    server = await startFaultHttp('http');
  });
  after(async () => {
    await server.stop();
    await proxy.close();
  });
  beforeEach(() => {
    proxy.seen.length = 0;
  });

  void it('reaches a server elsewhere through HTTP_PROXY, the session and every call included', async () => {
    const { client, stderr } = await connect(`http://${ELSEWHERE}:${server.port}/mcp`, { HTTP_PROXY: proxy.url('me:pr0xy-pass@') });
    assert.equal(await echo(client, 'via proxy'), 'Echo: via proxy');
    assert.ok(proxy.seen.length >= 1, 'the proxy carried the requests');
    assert.ok(
      proxy.seen.every((entry) => entry.target.startsWith(ELSEWHERE)),
      'to the configured host',
    );
    assert.equal(proxy.seen[0]?.headers['proxy-authorization'], `Basic ${Buffer.from('me:pr0xy-pass').toString('base64')}`);
    assert.match(stderr.all, /through the proxy http:\/\/\*\*\*@127\.0\.0\.1:\d+\//);
    assert.doesNotMatch(stderr.all, /pr0xy-pass/, 'the proxy password is never printed');
  });

  void it('goes direct to loopback whatever http_proxy says', async () => {
    const { client } = await connect(server.url, { http_proxy: proxy.url() });
    assert.equal(await echo(client, 'direct'), 'Echo: direct');
    assert.equal(proxy.seen.length, 0);
  });
});
