// What a client is told when the guarded server cannot start: the line of its stderr that says why (the thrown error
// of a Node crash), not Node's closing `Node.js v20` line nor a bare exit code; the same once the guard gives up.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { faultStdio } from '../../helpers/servers';
import { guarded, StderrWatch, waitUntilDead } from './support';

/** What `test/fixtures/stderr/stripe-no-key.txt` (the real @stripe/mcp without a key) throws. */
const STRIPE_LINE =
  'Error: Stripe API key not provided. Please either pass it as an argument --api-key=$KEY or set the STRIPE_SECRET_KEY environment variable.';
const STRIPE_CRASH = faultStdio('crash-like:stripe-no-key');

const started: ChildProcess[] = [];
afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    if (child.pid) await waitUntilDead(child.pid);
  }
});

void describe('guard over stdio, a server that exits at start with a reason on stderr', () => {
  void it("answers the SDK client's initialize with the thrown error, not the Node.js trailer", async () => {
    const launch = guarded(STRIPE_CRASH);
    const transport = new StdioClientTransport({ command: launch.command, args: launch.args, stderr: 'pipe' });
    const stderr = new StderrWatch(transport.stderr as Readable);
    const client = new Client({ name: 'guard-causes-test', version: '1.0.0' });
    const failure = await client.connect(transport).then(
      () => null,
      (error: unknown) => error,
    );
    const guardPid = transport.pid;
    await client.close();
    if (guardPid) await waitUntilDead(guardPid);
    assert.ok(failure instanceof Error, 'initialize must fail: the server never starts');
    assert.ok(failure.message.includes(`upstream exited with code 1: ${STRIPE_LINE}; restarting`), failure.message);
    // The guard's own log line leads with the same cause and keeps the tail after it.
    await stderr.waitFor(/upstream exited with code 1: Error: Stripe API key not provided\. .*; restarting; stderr: .*Node\.js v20/);
  });

  void it('after giving up on the crash loop, answers every request with the cause', async () => {
    const launch = guarded(STRIPE_CRASH);
    const guard = spawn(launch.command, launch.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    started.push(guard);
    const answers = new Map<number, string>();
    let buffered = '';
    guard.stdout.setEncoding('utf8');
    guard.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end)) as { id?: number; error?: { message: string } };
        buffered = buffered.slice(end + 1);
        if (typeof message.id === 'number' && message.error) answers.set(message.id, message.error.message);
      }
    });
    const send = (message: unknown) => guard.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    // Five crashes at the guard's back-off (500 ms initial, full jitter) take a few seconds; each ping asks again.
    let gaveUp: string | undefined;
    for (let id = 2; id < 100 && gaveUp === undefined; id++) {
      send({ jsonrpc: '2.0', id, method: 'ping' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      gaveUp = [...answers.values()].find((message) => message.startsWith('gave up'));
    }
    assert.ok(gaveUp !== undefined, `never gave up; answers: ${JSON.stringify([...answers.values()])}`);
    assert.equal(
      gaveUp,
      `gave up after 5 crashes in 3 min; last: upstream exited with code 1 (exit code 1): ${STRIPE_LINE}; not restarted until a restart from MCP Health`,
    );
    assert.ok(![...answers.values()].some((message) => /Node\.js v\d/.test(message)), 'no answer names the Node.js trailer');
  });
});
