import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { defaultGuardSettings } from '../../../src/guard/guardSession';
import { flushPromises } from '../../helpers/fakeClock';
import { handshake, INIT, INIT_RESULT, setup } from './guardHarness';

void describe('guard session', () => {
  void it('forwards lines byte for byte in both directions', async () => {
    const t = setup();
    t.session.start();
    await flushPromises();
    const odd = '{ "jsonrpc":"2.0", "id":"x", "method":"tools/list" ,"params":{"a":"\\u00e9"}}\n';
    t.session.fromClient(Buffer.from(odd));
    assert.equal(t.upstreams[0]!.written[0], odd);
    const back = '{"id":"x","jsonrpc":"2.0","result":{ "tools" : [] }}\n';
    t.upstreams[0]!.events.line(Buffer.from(back));
    assert.equal(t.toClient[0], back);
  });

  void it('on an upstream exit: errors in-flight requests with the cause, restarts after backoff, replays the handshake, announces list changes', async () => {
    const t = setup();
    await handshake(t);
    t.fromClient({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } });
    t.upstreams[0]!.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: 'oops' });
    const error = t.clientSaw().find((message) => message.id === 2) as { error: { code: number; message: string } };
    assert.deepEqual(error.error, { code: -32000, message: 'upstream exited with code 1: oops; restarting' });
    assert.equal(t.upstreams[0]!.closed, true);
    // A request arriving during the restart waits for the new upstream.
    t.fromClient({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.equal(t.upstreams.length, 1);
    await t.clock.advance(250); // backoff: full jitter of 500 ms at random 0.5
    assert.equal(t.upstreams.length, 2);
    const second = t.upstreams[1]!;
    const replay = second.requests()[0]!;
    assert.equal(replay.method, 'initialize');
    assert.match(String(replay.id), /^mcp-health-guard:/);
    assert.deepEqual(replay.params, INIT.params);
    second.say({ jsonrpc: '2.0', id: replay.id, result: INIT_RESULT });
    await flushPromises();
    assert.deepEqual(
      second
        .requests()
        .slice(1)
        .map((request) => request.method),
      ['notifications/initialized', 'tools/list'],
    );
    // The replayed answer is swallowed; the client is told to refetch tools.
    assert.equal(
      t.clientSaw().filter((message) => message.result && (message.result as { protocolVersion?: string }).protocolVersion).length,
      1,
      "only the first upstream's own answer",
    );
    assert.ok(t.clientSaw().some((message) => message.method === 'notifications/tools/list_changed'));
    assert.equal(t.session.status().restarts, 1);
    assert.equal(t.session.status().lastError?.exitCode, 1);
  });

  void it('drops late lines of a dead generation and client answers to its server requests', async () => {
    const t = setup();
    await handshake(t);
    const first = t.upstreams[0]!;
    first.say({ jsonrpc: '2.0', id: 'srv-1', method: 'sampling/createMessage', params: {} });
    first.events.ended({ message: 'upstream was killed by SIGKILL', exitCode: null, signal: 'SIGKILL', stderrTail: '' });
    const before = t.toClient.length;
    first.say({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'late' } });
    assert.equal(t.toClient.length, before);
    assert.ok(t.clientSaw().some((message) => message.method === 'notifications/cancelled'));
    await t.clock.advance(250);
    const second = t.upstreams[1]!;
    second.say({ jsonrpc: '2.0', id: second.requests()[0]!.id, result: INIT_RESULT });
    await flushPromises();
    t.fromClient({ jsonrpc: '2.0', id: 'srv-1', result: { role: 'assistant' } });
    assert.ok(!second.written.some((text) => text.includes('srv-1')));
  });

  void it('pauses the client while the upstream is full and resumes, in order, when it drains', async () => {
    const t = setup();
    await handshake(t);
    const upstream = t.upstreams[0]!;
    upstream.full = true;
    t.fromClient({ jsonrpc: '2.0', id: 10, method: 'a' });
    assert.equal(t.flow.at(-1), 'pause');
    upstream.full = false;
    upstream.events.drain();
    assert.equal(t.flow.at(-1), 'resume');
    t.fromClient({ jsonrpc: '2.0', id: 11, method: 'b' });
    assert.deepEqual(
      upstream
        .requests()
        .slice(-2)
        .map((request) => request.id),
      [10, 11],
    );
  });

  void it('forgets a request the client cancelled, so a later failure does not answer it', async () => {
    const t = setup();
    await handshake(t);
    t.fromClient({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow' } });
    t.fromClient({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    t.upstreams[0]!.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: '' });
    assert.equal(t.clientSaw().filter((message) => message.id === 5).length, 0);
  });

  void it('closes the client connection when the restarted upstream negotiates another version or loses a capability', async () => {
    for (const changed of [
      { ...INIT_RESULT, protocolVersion: '2025-03-26' },
      { ...INIT_RESULT, capabilities: { logging: {} } },
    ]) {
      const t = setup();
      await handshake(t);
      t.upstreams[0]!.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: '' });
      await t.clock.advance(250);
      const second = t.upstreams[1]!;
      second.say({ jsonrpc: '2.0', id: second.requests()[0]!.id, result: changed });
      await flushPromises();
      assert.deepEqual(t.closedWith, [1]);
      assert.equal(second.closed, true);
      assert.ok(t.logLines.some((entry) => /restarted upstream/.test(entry)));
    }
  });

  void it('grows the backoff on a crash loop and answers queued requests when a restart itself fails', async () => {
    const t = setup();
    await handshake(t);
    t.upstreams[0]!.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: '' });
    t.fromClient({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    await t.clock.advance(250);
    t.upstreams[1]!.events.ended({ message: 'upstream exited with code 2', exitCode: 2, signal: null, stderrTail: '' });
    assert.deepEqual(
      (t.clientSaw().find((message) => message.id === 7) as { error: { message: string } }).error.message,
      'upstream exited with code 2; restarting',
    );
    assert.deepEqual(t.clock.pendingDelays(), [500]);
    await t.session.close(0);
    assert.equal(t.clock.pendingTimers(), 0);
  });
});

void describe('guard session, the cause a client is answered with', () => {
  const stripe = readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'stderr', 'stripe-no-key.txt'), 'utf8');
  const STRIPE_LINE =
    'Error: Stripe API key not provided. Please either pass it as an argument --api-key=$KEY or set the STRIPE_SECRET_KEY environment variable.';

  void it('names the thrown error of a Node crash, not its `Node.js v20` trailer, in the error of a request the restart could not serve', async () => {
    const t = setup();
    t.session.start();
    await flushPromises();
    t.fromClient(INIT);
    t.upstreams[0]!.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: stripe });
    await t.clock.advance(1_000);
    t.upstreams[1]!.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: stripe });
    const answer = t.clientSaw().find((message) => message.id === 1) as { error: { message: string } };
    assert.equal(answer.error.message, `upstream exited with code 1: ${STRIPE_LINE}; restarting`);
    // The log keeps the tail as well, after the cause.
    assert.ok(
      t.logLines.some(
        (line) => line.includes(`upstream exited with code 1: ${STRIPE_LINE}; restarting; stderr: `) && line.includes('Node.js v20.20.2'),
      ),
    );
    await t.session.close(0);
  });

  void it('adds nothing for an upstream killed by a signal: its stderr says how it started, not why it was killed', async () => {
    const t = setup();
    await handshake(t);
    t.fromClient({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } });
    t.upstreams[0]!.events.ended({
      message: 'upstream was killed by SIGKILL',
      exitCode: null,
      signal: 'SIGKILL',
      stderrTail: 'Starting default (STDIO) server...\n',
    });
    const answer = t.clientSaw().find((message) => message.id === 2) as { error: { message: string } };
    assert.equal(answer.error.message, 'upstream was killed by SIGKILL; restarting');
    await t.session.close(0);
  });

  void it('names it in the error of a request arriving after the client closed its input', async () => {
    const t = setup();
    t.session.start();
    await flushPromises();
    t.fromClient(INIT);
    t.session.clientClosed();
    t.upstreams[0]!.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: stripe });
    const answer = t.clientSaw().find((message) => message.id === 1) as { error: { message: string } };
    assert.equal(answer.error.message, `upstream exited with code 1: ${STRIPE_LINE}`);
  });
});

void describe('guard session, crash loops', () => {
  void it('gives up after 5 crashes in 3 minutes: no more restarts, each request answered with the cause, state gave-up; a restart from MCP Health starts afresh', async () => {
    const t = setup();
    await handshake(t);
    for (let crash = 0; crash < 5; crash++) {
      const upstream = t.upstreams.at(-1)!;
      if (crash > 0) {
        // The restarted upstream comes up (its replayed initialize answered), then dies again.
        const replay = upstream.requests()[0]!;
        upstream.say({ jsonrpc: '2.0', id: replay.id, result: INIT_RESULT });
        await flushPromises();
      }
      upstream.events.ended({ message: 'upstream exited with code 3', exitCode: 3, signal: null, stderrTail: 'Error: API_KEY is not set' });
      await t.clock.advance(20_000);
    }
    assert.equal(t.upstreams.length, 5, 'five generations, no sixth');
    assert.equal(t.session.status().state, 'gave-up');
    assert.equal(t.clock.pendingTimers(), 0, 'no restart planned');
    t.fromClient({ jsonrpc: '2.0', id: 42, method: 'tools/list' });
    const answer = t.clientSaw().find((message) => message.id === 42) as { error: { code: number; message: string } };
    assert.equal(answer.error.code, -32000);
    assert.match(
      answer.error.message,
      /^gave up after 5 crashes in 3 min; last: upstream exited with code 3 \(exit code 3\): Error: API_KEY is not set; not restarted/,
    );
    assert.ok(t.logLines.some((line) => /gave up after 5 crashes in 3 min/.test(line)));

    assert.equal(t.session.restartNow().restarting, true);
    await flushPromises();
    assert.equal(t.upstreams.length, 6, 'started afresh');
    const replay = t.upstreams[5]!.requests()[0]!;
    t.upstreams[5]!.say({ jsonrpc: '2.0', id: replay.id, result: INIT_RESULT });
    await flushPromises();
    assert.equal(t.session.status().state, 'ready');
  });

  void it('a restart asked for from MCP Health is not counted as a crash', async () => {
    const t = setup();
    await handshake(t);
    for (let restart = 0; restart < 6; restart++) {
      assert.equal(t.session.restartNow().restarting, true, `restart ${restart}`);
      await t.clock.advance(20_000);
      const upstream = t.upstreams.at(-1)!;
      upstream.say({ jsonrpc: '2.0', id: upstream.requests()[0]!.id, result: INIT_RESULT });
      await flushPromises();
    }
    assert.equal(t.session.status().state, 'ready');
  });
});

void describe('guard session, Ping and Reconnect asked for from MCP Health', () => {
  void it('probeNow: nothing before the era is known, then a ping with the real round trip, a timeout without a restart', async () => {
    const t = setup();
    t.session.start();
    await flushPromises();
    assert.deepEqual(await t.session.probeNow(1000), {
      method: 'ping',
      outcome: 'failed',
      detail: 'the client has not spoken to the server yet, so its protocol era is unknown',
    });
    t.fromClient(INIT);
    t.upstreams[0]!.say({ jsonrpc: '2.0', id: 1, result: INIT_RESULT });
    const probing = t.session.probeNow(1000);
    const ping = t.upstreams[0]!.requests().at(-1)!;
    assert.equal(ping.method, 'ping');
    assert.match(String(ping.id), /^mcp-health-guard:/);
    await t.clock.advance(12);
    t.upstreams[0]!.say({ jsonrpc: '2.0', id: ping.id, result: {} });
    assert.deepEqual(await probing, { method: 'ping', outcome: 'ok', rttMs: 12 });
    const hanging = t.session.probeNow(1000);
    await t.clock.advance(1000);
    assert.deepEqual(await hanging, { method: 'ping', outcome: 'timeout', detail: 'no answer within 1000 ms' });
    assert.equal(t.upstreams.length, 1, 'a manual probe restarts nothing');
    assert.ok(!t.clientSaw().some((message) => String(message.id).startsWith('mcp-health-guard:')), 'the pong stays in the guard');
  });

  void it('restartNow: refused while a client request is in flight, then a crash-style recovery with the handshake replayed', async () => {
    const t = setup();
    await handshake(t);
    t.fromClient({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } });
    assert.deepEqual(t.session.restartNow(), {
      restarting: false,
      detail: '1 message(s) of the client are in flight; a restart now would fail them',
    });
    t.upstreams[0]!.say({ jsonrpc: '2.0', id: 2, result: { content: [] } });
    assert.equal(t.session.restartNow().restarting, true);
    assert.equal(t.upstreams[0]!.closed, true);
    await t.clock.advance(250);
    assert.equal(t.upstreams[1]!.requests()[0]!.method, 'initialize');
    assert.ok(!t.clientSaw().some((message) => message.error), 'no request of the client failed');
  });
});

void describe('guard session, the client closing its input (half-close)', () => {
  void it('delivers what the client sent before the upstream was up and its answers, then closes', async () => {
    const t = setup();
    t.session.start();
    // `printf ... | guard`: all three lines and the EOF arrive before the upstream is running.
    t.fromClient(INIT);
    t.fromClient({ jsonrpc: '2.0', method: 'notifications/initialized' });
    t.fromClient({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    t.session.clientClosed();
    assert.deepEqual(t.closedWith, []);
    await flushPromises();
    const upstream = t.upstreams[0]!;
    assert.deepEqual(
      upstream.requests().map((message) => message.method),
      ['initialize', 'notifications/initialized', 'tools/list'],
    );
    upstream.say({ jsonrpc: '2.0', id: 1, result: INIT_RESULT });
    assert.deepEqual(t.closedWith, [], 'tools/list is still unanswered');
    upstream.say({ jsonrpc: '2.0', id: 2, result: { tools: [] } });
    await flushPromises();
    assert.deepEqual(
      t.clientSaw().map((message) => message.id),
      [1, 2],
    );
    assert.deepEqual(t.closedWith, [0]);
    assert.equal(upstream.closed, true);
    assert.equal(t.clock.pendingTimers(), 0);
  });

  void it('closes at once when nothing is left to answer', async () => {
    const t = setup();
    await handshake(t);
    t.session.clientClosed();
    await flushPromises();
    assert.deepEqual(t.closedWith, [0]);
  });

  void it('waits while the upstream keeps talking, and answers with an error after the timeout of silence', async () => {
    const t = setup();
    await handshake(t);
    t.fromClient({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow' } });
    t.session.clientClosed();
    const { timeoutMs } = defaultGuardSettings;
    await t.clock.advance(timeoutMs - 1);
    t.upstreams[0]!.say({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });
    await t.clock.advance(timeoutMs - 1);
    assert.deepEqual(t.closedWith, [], 'progress counts as life');
    await t.clock.advance(1);
    await flushPromises();
    const answer = t.clientSaw().find((message) => message.id === 3) as { error: { code: number; message: string } };
    assert.deepEqual(answer.error, {
      code: -32000,
      message: `the client closed its input and the upstream sent nothing for ${timeoutMs} ms`,
    });
    assert.deepEqual(t.closedWith, [0]);
  });

  void it('does not restart an upstream that dies after the client closed its input', async () => {
    const t = setup();
    await handshake(t);
    t.fromClient({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'slow' } });
    t.session.clientClosed();
    t.upstreams[0]!.events.ended({ message: 'upstream exited with code 0', exitCode: 0, signal: null, stderrTail: '' });
    await flushPromises();
    assert.equal(
      (t.clientSaw().find((message) => message.id === 4) as { error: { message: string } }).error.message,
      'upstream exited with code 0',
    );
    assert.deepEqual(t.closedWith, [0]);
    await t.clock.advance(60_000);
    assert.equal(t.upstreams.length, 1);
  });
});

void describe('guard session, client ids that begin with the guard prefix', () => {
  void it('answers such a request with its own id while the guard probes with ids of the same shape', async () => {
    const t = setup();
    await handshake(t);
    const upstream = t.upstreams[0]!;
    // The keepalive's first probe is exactly mcp-health-guard:probe-1; the client picked that id too.
    t.fromClient({ jsonrpc: '2.0', id: 'mcp-health-guard:probe-1', method: 'tools/list' });
    const sent = upstream.requests().at(-1)!;
    assert.equal(sent.id, 'mcp-health-guard:~probe-1');
    await t.clock.advance(defaultGuardSettings.intervalMs);
    const probe = upstream.requests().at(-1)!;
    assert.equal(probe.id, 'mcp-health-guard:probe-1');
    upstream.say({ jsonrpc: '2.0', id: probe.id, result: {} });
    upstream.events.line(Buffer.from('{"jsonrpc":"2.0", "id" : "mcp-health-guard:~probe-1","result":{"tools":[]}}\n'));
    assert.equal(
      t.toClient.at(-1),
      '{"jsonrpc":"2.0", "id" : "mcp-health-guard:probe-1","result":{"tools":[]}}\n',
      'only the id changed back',
    );
    assert.equal(t.toClient.length, 2, 'the probe answer stayed in the guard');
    assert.equal(t.session.status().keepalive.answered, 1);
    assert.equal(t.session.status().methods['tools/list']?.count, 1);
  });

  void it('marks the id in a cancellation, and answers such a request with its own id when the upstream dies', async () => {
    const t = setup();
    await handshake(t);
    const upstream = t.upstreams[0]!;
    t.fromClient({ jsonrpc: '2.0', id: 'mcp-health-guard:a', method: 'tools/call', params: { name: 'slow' } });
    t.fromClient({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'mcp-health-guard:a', reason: 'x' } });
    assert.deepEqual(upstream.requests().at(-1)!.params, { requestId: 'mcp-health-guard:~a', reason: 'x' });
    t.fromClient({ jsonrpc: '2.0', id: 'mcp-health-guard:b', method: 'tools/call', params: { name: 'slow' } });
    upstream.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: '' });
    assert.deepEqual(
      t
        .clientSaw()
        .filter((message) => message.error)
        .map((message) => message.id),
      ['mcp-health-guard:b'],
    );
  });
});

void describe('guard session, JSON-RPC batches', () => {
  void it('forwards a batch both ways unchanged and books every request in it', async () => {
    const t = setup();
    await handshake(t);
    const upstream = t.upstreams[0]!;
    const batch =
      '[{"jsonrpc":"2.0","id":2,"method":"tools/list"}, {"jsonrpc":"2.0","id":"x","method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]\n';
    t.session.fromClient(Buffer.from(batch));
    assert.equal(upstream.written.at(-1), batch);
    const answer = '[{"jsonrpc":"2.0","id":"x","result":{}},{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}]\n';
    upstream.events.line(Buffer.from(answer));
    assert.equal(t.toClient.at(-1), answer);
    assert.equal(t.session.status().methods['tools/list']?.count, 1);
    assert.equal(t.session.status().methods.ping?.count, 1);
    assert.ok(!t.logLines.some((entry) => /not a JSON-RPC message/.test(entry)));
  });

  void it('takes its own answers out of a batch, gives marked ids back, and fails the requests of a batch when the upstream dies', async () => {
    const t = setup();
    await handshake(t);
    const upstream = t.upstreams[0]!;
    t.session.fromClient(
      Buffer.from(
        '[{"jsonrpc":"2.0","id":"mcp-health-guard:c","method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}]\n',
      ),
    );
    assert.deepEqual(
      JSON.parse(upstream.written.at(-1)!).map((message: { id: unknown }) => message.id),
      ['mcp-health-guard:~c', 5],
    );
    await t.clock.advance(defaultGuardSettings.intervalMs);
    const probe = upstream.requests().at(-1)!;
    upstream.say([
      { jsonrpc: '2.0', id: probe.id, result: {} },
      { jsonrpc: '2.0', id: 'mcp-health-guard:~c', result: { tools: [] } },
    ]);
    assert.deepEqual(JSON.parse(t.toClient.at(-1)!), [{ jsonrpc: '2.0', id: 'mcp-health-guard:c', result: { tools: [] } }]);
    assert.equal(t.session.status().keepalive.answered, 1);
    upstream.events.ended({ message: 'upstream exited with code 1', exitCode: 1, signal: null, stderrTail: '' });
    assert.deepEqual(
      t
        .clientSaw()
        .filter((message) => message.error)
        .map((message) => message.id),
      [5],
    );
  });
});
