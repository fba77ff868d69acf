// The guard across a sleep: `mcp-health guard --url` in front of a real Streamable HTTP server (sessions), frozen with
// SIGSTOP for longer than its interval and the suspend threshold while the server restarts on the same port, so the
// upstream session is gone. After SIGCONT the guard must notice the wake, probe at once, restart the expired session
// (handshake replayed), and serve the client's next call.

import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SUSPEND_THRESHOLD_MS } from '../../../src/core/monitor/suspend';
import { freePort, startFaultHttp, type RunningServer } from '../../helpers/servers';
import { sleep } from '../../helpers/wait';
import { CLI, recording, StderrWatch, waitUntilDead } from './support';

const FROZEN_MS = SUSPEND_THRESHOLD_MS + 4_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text?: string }> }).content ?? []).map((part) => part.text ?? '').join('');
}

void describe('guard across a sleep (SIGSTOP while its HTTP server restarts)', () => {
  void it('probes at once on wake, restarts the expired session and serves the next call', { timeout: 90_000 }, async () => {
    const port = await freePort();
    let server: RunningServer = await startFaultHttp('http', 'none', ['--port', String(port)]);
    cleanups.push(() => server.stop());
    const inner = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'guard', '--url', server.url, '--interval-ms', '2000', '--timeout-ms', '3000'],
      stderr: 'pipe',
      env: { ...getDefaultEnvironment(), MCP_HEALTH_GUARD_DEBUG: '1' },
    });
    const stderr = new StderrWatch(inner.stderr as Readable);
    const { transport, closed } = recording(inner);
    const client = new Client({ name: 'guard-sleep-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = inner.pid!;
    cleanups.push(async () => {
      // A guard left stopped would never end: it is resumed before it is closed.
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        /* already gone */
      }
      await client.close();
      await waitUntilDead(pid);
    });
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'before' } })), 'Echo: before');

    process.kill(pid, 'SIGSTOP');
    const frozenAt = Date.now();
    await server.stop();
    server = await startFaultHttp('http', 'none', ['--port', String(port)]);
    await sleep(Math.max(0, frozenAt + FROZEN_MS - Date.now()));
    const before = stderr.all.length;
    process.kill(pid, 'SIGCONT');

    await stderr.waitFor(/resumed after \d+ s asleep: probing the upstream/);
    // The expired session is replaced through the normal restart path: a second generation, handshake replayed.
    await stderr.waitFor(/upstream started \(pid \S+, generation 2\)/);
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'after' } })), 'Echo: after');
    const since = stderr.all.slice(before);
    assert.equal(since.match(/resumed after/g)?.length, 1, 'one wake');
    assert.ok(!/did not answer a keepalive/.test(since), `no probe timeout judged across the freeze\n${since}`);
    assert.equal(closed(), false);
  });
});
