// `mcp-health guard` in front of real stdio servers, driven by the real v1 and v2 SDK clients: the client's
// connection must survive an upstream crash and a hang without the client reconnecting.

import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { everythingStdio, faultStdio, modernStdio, type StdioLaunch } from '../../helpers/servers';
import { guarded, isAlive, recording, StderrWatch, waitUntilDead } from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** After the test: close the client, then wait until the guard and every upstream it started are gone. */
function reapOnCleanup(client: { close(): Promise<void> }, stderr: StderrWatch, guardPid: number): void {
  cleanups.push(async () => {
    const pids = stderr.upstreamPids();
    await client.close();
    await waitUntilDead(guardPid);
    for (const pid of pids) await waitUntilDead(pid);
  });
}

interface V1Session {
  client: Client;
  stderr: StderrWatch;
  received: unknown[];
  closed: () => boolean;
  guardPid: number;
}

async function connectV1(server: StdioLaunch, flags: string[] = [], capabilities: Record<string, unknown> = {}): Promise<V1Session> {
  const launch = guarded(server, flags);
  const inner = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    stderr: 'pipe',
    env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
  });
  const stderr = new StderrWatch(inner.stderr as Readable);
  const { transport, received, closed } = recording(inner);
  const client = new Client({ name: 'guard-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  const guardPid = inner.pid!;
  reapOnCleanup(client, stderr, guardPid);
  return { client, stderr, received, closed, guardPid };
}

function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((part) => part.text ?? '').join('');
}

function guardMessages(received: unknown[]): unknown[] {
  return received.filter(
    (message) => JSON.stringify(message).includes('mcp-health-guard') || (message as { method?: string }).method === 'ping',
  );
}

void describe('guard over stdio, v1 SDK client, server-everything', () => {
  void it('passes the upstream initialize result through and keeps tool calls working across an upstream crash', async () => {
    const session = await connectV1(everythingStdio());
    assert.equal(session.client.getServerVersion()?.name, 'mcp-servers/everything');
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'before' } })), 'Echo: before');
    const [first] = session.stderr.upstreamPids();
    assert.ok(first && isAlive(first));
    process.kill(first, 'SIGKILL');
    const second = await session.stderr.waitForGeneration(2);
    assert.notEqual(second, first);
    await session.stderr.waitFor(/upstream was killed by SIGKILL; restarting/);
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'after' } })), 'Echo: after');
    assert.equal(session.closed(), false, 'the client connection stayed open');
    // The client was told to refetch what the new upstream offers.
    assert.ok(session.received.some((message) => (message as { method?: string }).method === 'notifications/tools/list_changed'));
  });

  void it('answers a call in flight at the crash with an error naming the cause, and drops nothing after', async () => {
    const session = await connectV1(everythingStdio());
    const inFlight = session.client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } });
    const rejected = assert.rejects(inFlight, (error: unknown) => {
      assert.ok(error instanceof McpError);
      assert.equal(error.code, -32000);
      assert.match(error.message, /upstream was killed by SIGKILL; restarting/);
      return true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(session.stderr.upstreamPids()[0]!, 'SIGKILL');
    await rejected;
    await session.stderr.waitForGeneration(2);
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'next' } })), 'Echo: next');
  });

  void it('detects a SIGSTOP hang with its own pings, restarts the upstream, and never shows its pings to the client', async () => {
    const session = await connectV1(everythingStdio(), ['--interval-ms', '1000', '--timeout-ms', '1000']);
    await session.client.callTool({ name: 'echo', arguments: { message: 'x' } });
    const [first] = session.stderr.upstreamPids();
    process.kill(first!, 'SIGSTOP');
    await session.stderr.waitFor(/upstream did not answer a keepalive ping within 1000 ms; restarting/);
    await session.stderr.waitForGeneration(2);
    await waitUntilDead(first!);
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'alive' } })), 'Echo: alive');
    // Let several idle intervals pass on the new upstream: its pings are answered and swallowed.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    assert.deepEqual(guardMessages(session.received), []);
    assert.equal(session.closed(), false);
  });

  void it('lets server-to-client requests (sampling, elicitation) round-trip through the guard', async () => {
    const session = await connectV1(everythingStdio(), [], { sampling: {}, elicitation: {} });
    session.client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      model: 'test-model',
      role: 'assistant',
      content: { type: 'text', text: `sampled: ${String((request.params.messages[0]?.content as { text?: string }).text)}` },
    }));
    session.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada Lovelace' } }));
    const sampled = await session.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 10 } });
    assert.match(textOf(sampled), /sampled: .*hello/);
    const elicited = await session.client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    assert.match(textOf(elicited), /Ada Lovelace/);
  });
});

void describe('guard over stdio, fault servers', () => {
  void it('restarts an upstream that exits with a code and names the code', async () => {
    const session = await connectV1(faultStdio('none'));
    assert.match(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'a' } })), /a/);
    process.kill(session.stderr.upstreamPids()[0]!, 'SIGTERM');
    await session.stderr.waitFor(/upstream (was killed by SIGTERM|exited with code \d+); restarting/);
    await session.stderr.waitForGeneration(2);
    await session.client.callTool({ name: 'echo', arguments: { message: 'b' } });
    assert.equal(session.closed(), false);
  });

  void it('flags an error pong once and keeps the upstream', async () => {
    const session = await connectV1(faultStdio('error-pong'), ['--interval-ms', '1000', '--timeout-ms', '1000']);
    await session.stderr.waitFor(/answered the keepalive ping with error -32603/);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(session.stderr.all.match(/answered the keepalive ping with error/g)?.length, 1, 'reported once, not on every probe');
    assert.equal(session.stderr.upstreamPids().length, 1, 'no restart for a wrong pong');
    await session.client.callTool({ name: 'echo', arguments: { message: 'still' } });
  });

  void it('stops probing a server that ignores pings while it answers everything else, instead of restarting it', async () => {
    const session = await connectV1(faultStdio('ignore-ping'), ['--interval-ms', '1000', '--timeout-ms', '1500']);
    // Real traffic answered while the probe is outstanding is what tells "ignores pings" from "hung".
    await session.stderr.waitFor(/keepalive ping \S+ sent/);
    for (let i = 0; i < 10; i++) {
      await session.client.callTool({ name: 'echo', arguments: { message: 'busy' } });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await session.stderr.waitFor(/keepalive probes stopped/);
    // Idle again for longer than the interval: no further probe, no restart.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(session.stderr.all.match(/keepalive ping \S+ sent/g)?.length, 1);
    assert.equal(session.stderr.upstreamPids().length, 1);
  });
});

void describe('guard over stdio, a command that cannot start', () => {
  void it('reports it and closes instead of retrying forever', async () => {
    const launch = guarded({ command: '/nonexistent/mcp-server', args: [] });
    const inner = new StdioClientTransport({ command: launch.command, args: launch.args, stderr: 'pipe' });
    const stderr = new StderrWatch(inner.stderr as Readable);
    const client = new Client({ name: 'guard-test', version: '1.0.0' });
    await assert.rejects(client.connect(inner));
    await stderr.waitFor(/cannot start "\/nonexistent\/mcp-server": command not found \(ENOENT\)/);
    if (inner.pid) await waitUntilDead(inner.pid);
    await client.close();
  });
});

void describe('guard over stdio, v2 client', () => {
  async function connectV2(server: StdioLaunch, flags: string[] = []) {
    const launch = guarded(server, flags);
    const inner = new StdioClientTransportV2({
      command: launch.command,
      args: launch.args,
      stderr: 'pipe',
      env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
    });
    const stderr = new StderrWatch(inner.stderr as Readable);
    const { transport, received, closed } = recording(inner);
    const client = new ClientV2({ name: 'guard-test-v2', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(transport);
    const guardPid = inner.pid!;
    reapOnCleanup(client, stderr, guardPid);
    return { client, stderr, received, closed };
  }

  void it('keeps a handshake-era server working across a crash', async () => {
    const session = await connectV2(everythingStdio());
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'v2' } })), 'Echo: v2');
    process.kill(session.stderr.upstreamPids()[0]!, 'SIGKILL');
    await session.stderr.waitForGeneration(2);
    assert.equal(textOf(await session.client.callTool({ name: 'echo', arguments: { message: 'v2 after' } })), 'Echo: v2 after');
    assert.equal(session.closed(), false);
  });

  void it('keeps a 2026-07-28 server working across a crash and probes it with server/discover', async () => {
    const session = await connectV2(modernStdio(), ['--interval-ms', '1000', '--timeout-ms', '2000']);
    assert.equal(session.client.getProtocolEra(), 'modern');
    const tools = await session.client.listTools();
    const tool = tools.tools[0]!;
    await session.client.callTool({ name: tool.name, arguments: { message: 'm' } });
    process.kill(session.stderr.upstreamPids()[0]!, 'SIGKILL');
    await session.stderr.waitForGeneration(2);
    await session.client.callTool({ name: tool.name, arguments: { message: 'm2' } });
    // Idle intervals pass: the guard's server/discover probes must neither fail nor reach the client.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.match(session.stderr.all, /keepalive server\/discover answered/);
    assert.doesNotMatch(session.stderr.all, /keepalive.*(error|without|not answer)/);
    assert.deepEqual(guardMessages(session.received), []);
    assert.equal(session.closed(), false);
  });
});
