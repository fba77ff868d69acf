// `mcp-health guard --url` when the network drops the SSE streams mid-way: the fault server keeps its events per stream
// (resumability), a proxy between the guard and the server cuts every connection at once, and the client behind the
// guard must still get its answer and its notifications, with no new session and no reconnect of its own.
// (server-everything's own event store cannot serve this: its replay returns the event id where the SDK expects the
// stream id, so the resumed stream is registered under the wrong stream and the rest of the answer never comes.)

import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { startFaultHttp, startStallProxy } from '../../helpers/servers';
import { CLI, recording, StderrWatch, waitUntilDead } from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function guardedServerBehindProxy(fault = 'resumable') {
  const server = await startFaultHttp('http', fault);
  cleanups.push(() => server.stop());
  const proxy = await startStallProxy(server.port, '/mcp');
  cleanups.push(() => proxy.stop());
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'guard', '--url', proxy.url],
    stderr: 'pipe',
    env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
  });
  const stderr = new StderrWatch(inner.stderr as Readable);
  const { transport, closed, received } = recording(inner);
  const client = new Client({ name: 'guard-resume-test', version: '1.0.0' });
  await client.connect(transport);
  const pid = inner.pid!;
  cleanups.push(async () => {
    await client.close();
    await waitUntilDead(pid);
  });
  return { client, proxy, stderr, closed, received };
}

/** A promise and the function that settles it, for "wait until the n-th event". */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

void describe('guard over Streamable HTTP, SSE streams cut mid-way', () => {
  void it("resumes a request's SSE response stream with Last-Event-ID: every progress notification and the answer arrive", async () => {
    const { client, proxy, stderr, closed, received } = await guardedServerBehindProxy();
    const steps = 6;
    const firstProgress = signal();
    const call = client.callTool({ name: 'count', arguments: { steps, intervalMs: 300 } }, undefined, {
      onprogress: () => firstProgress.fire(),
      timeout: 30_000,
    });
    await firstProgress.promise;
    await proxy.cut();
    const result = (await call) as { content: Array<{ text?: string }> };
    assert.equal(result.content[0]?.text, `Counted ${steps}`);
    // Nothing lost and nothing twice: the resumed stream starts right after the last event the guard had seen. (Counted
    // on what reached the client's transport: the v1 client may settle the call before it runs the last progress callback.)
    const delivered = received.filter((message) => (message as { method?: string }).method === 'notifications/progress');
    assert.deepEqual(
      delivered.map((message) => (message as { params: { progress: number } }).params.progress),
      Array.from({ length: steps }, (_, i) => i + 1),
    );
    assert.match(stderr.all, /SSE stream disconnected/);
    assert.doesNotMatch(stderr.all, /restarting|generation 2/, 'the same upstream session carried on');
    assert.equal(closed(), false);
  });

  void it('resumes the standalone GET stream: server notifications keep arriving after the cut', async () => {
    const { client, proxy, stderr, closed } = await guardedServerBehindProxy();
    const logged: string[] = [];
    let wanted = signal();
    let want = 1;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logged.push(JSON.stringify(notification.params.data));
      if (logged.length >= want) wanted.fire();
    });
    const steps = 8;
    await client.callTool({ name: 'announce', arguments: { steps, intervalMs: 300 } });
    await wanted.promise;
    wanted = signal();
    want = steps;
    await proxy.cut();
    await wanted.promise;
    // Every announcement once, in order: those sent while the stream was down came with the resumed stream.
    assert.deepEqual(
      logged,
      Array.from({ length: steps }, (_, i) => JSON.stringify(`announce ${i + 1}`)),
    );
    assert.match(stderr.all, /SSE stream disconnected/);
    assert.doesNotMatch(stderr.all, /restarting|generation 2/);
    // The client's own requests still pass on the same session.
    const echo = (await client.callTool({ name: 'echo', arguments: { message: 'after the cut' } })) as {
      content: Array<{ text?: string }>;
    };
    assert.equal(echo.content[0]?.text, 'Echo: after the cut');
    assert.equal(closed(), false);
  });

  void it('answers a request whose stream cannot be resumed (no event ids) with an error naming the cause, and goes on', async () => {
    const { client, proxy, stderr, closed } = await guardedServerBehindProxy('stream-tools');
    const firstProgress = signal();
    const call = client.callTool({ name: 'count', arguments: { steps: 20, intervalMs: 200 } }, undefined, {
      onprogress: () => firstProgress.fire(),
      timeout: 30_000,
    });
    const failed = assert.rejects(call, (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32000);
      assert.match(error.message, /response stream of this request ended before its answer and could not be resumed/);
      return true;
    });
    await firstProgress.promise;
    await proxy.cut();
    await failed;
    const echo = (await client.callTool({ name: 'echo', arguments: { message: 'next' } })) as { content: Array<{ text?: string }> };
    assert.equal(echo.content[0]?.text, 'Echo: next');
    assert.doesNotMatch(stderr.all, /restarting|generation 2/);
    assert.equal(closed(), false);
  });
});
