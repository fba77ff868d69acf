// Streamable HTTP probes go through the session's own SDK transport: the verdict is the one a real client would get.
// Against a scriptable server on 127.0.0.1 (quirkyHttp.ts): the request as sent, every way a reply can come back or
// fail, and the defects the hand-written node:http path had (issue 9: 1, 3, 4, 11, and HTTP errors on ping).

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { answer, json, type QuirkyRequest, type Reply } from './quirkyHttp';
import { waitUntil } from '../../helpers/wait';
import { httpServer, quirkyLab } from './support';

const CONNECT_MS = 10_000;
const PROBE_MS = 3000;

const pong = (request: QuirkyRequest, response: ServerResponse): void => json(response, answer(request, {}));

/** The answer as an event stream that the server then leaves open, as Streamable HTTP allows (it only SHOULD close). */
const pongOnOpenStream: Reply = (request, response) => {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(`event: message\ndata: ${JSON.stringify(answer(request, {}))}\n\n`);
};

void describe('HTTP probes through the SDK transport', () => {
  const { lab, connections, connector } = quirkyLab();

  const connect = async (headers?: Record<string, string>) =>
    connections.add(
      await connector().connect(httpServer('lab', lab.url(), 'http', headers ? { headers } : {}), {
        timeoutMs: CONNECT_MS,
        eraHint: 'handshake',
      }),
    );

  void it('sends the headers the SDK transport sends, with the configured ones', async () => {
    const connection = await connect({ 'X-Api-Key': 'k-123', Accept: 'application/x-custom' });
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    const { headers } = lab.received('ping')[0];
    assert.equal(headers['mcp-session-id'], 'session-1');
    assert.equal(headers['mcp-protocol-version'], connection.protocolVersion);
    assert.equal(headers['x-api-key'], 'k-123');
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers.accept, 'application/x-custom, application/json, text/event-stream');
    assert.equal(headers['mcp-method'], undefined, 'handshake-era requests carry no body-derived headers');
  });

  void it('a header value with a trailing newline is sent as fetch sends it: connect and probes agree', async () => {
    // Issue 9 defect 4: the node:http path refused the value fetch trims, so every probe failed while connect worked.
    lab.on('ping', (request, response) => {
      if (request.headers.authorization !== 'Bearer x') return void response.writeHead(401).end();
      pong(request, response);
    });
    const connection = await connect({ Authorization: 'Bearer x\n' });
    for (let round = 0; round < 3; round++) {
      const result = await connection.probe(PROBE_MS);
      assert.equal(result.outcome, 'ok', result.detail);
    }
  });

  void it('probes answered with JSON reuse kept-alive sockets rather than opening one each', async () => {
    const connection = await connect();
    for (let round = 0; round < 20; round++) assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    const pings = lab.received('ping');
    assert.equal(pings.length, 20);
    assert.ok(new Set(pings.map((ping) => ping.socket)).size <= 4, 'a handful of sockets at most');
  });

  void it('reads an event-stream reply: priming event, a notification first, CRLF line ends, a split line', async () => {
    const connection = await connect();
    let activity = 0;
    connection.onActivity(() => activity++);
    lab.on('ping', (ping, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('id: prime-1\r\ndata:\r\n\r\n');
      response.write(
        `event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\r\n\r\n`,
      );
      response.write(`data: {"jsonrpc":"2.0",`);
      setTimeout(() => response.end(`"id":${ping.id},"result":{}}\r\n\r\n`), 20);
    });
    const result = await connection.probe(PROBE_MS);
    assert.equal(result.outcome, 'ok', result.detail);
    assert.equal(activity, 2, 'the notification and the answer both count as activity');
  });

  void it('reads a batch reply', async () => {
    const connection = await connect();
    lab.on('ping', (ping, response) =>
      json(response, [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, answer(ping, {})]),
    );
    const result = await connection.probe(PROBE_MS);
    assert.equal(result.outcome, 'ok', result.detail);
  });

  void it('sees a non-empty pong and an error reply as sent', async () => {
    const connection = await connect();
    lab.on('ping', (ping, response) => json(response, answer(ping, { status: 'ok' })));
    const nonEmpty = await connection.probe(PROBE_MS);
    assert.equal(nonEmpty.outcome, 'non-empty');
    assert.match(nonEmpty.detail ?? '', /status/);
    lab.on('ping', (ping, response) => json(response, { jsonrpc: '2.0', id: ping.id, error: { code: -32603, message: 'busy' } }));
    const error = await connection.probe(PROBE_MS);
    assert.equal(error.outcome, 'error-reply');
    assert.match(error.detail ?? '', /-32603: busy/);
  });

  void it('an HTTP error or a reply that is not MCP, while initialize works, is a violation named for what came back', async () => {
    // Issue 9 decision: the same storm guard as an error pong (error-reply), not an outage.
    const connection = await connect();
    const cases: Array<[Reply, RegExp]> = [
      [(_, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('database down'), /HTTP 500.*database down/],
      [(_, response) => response.writeHead(502).end(), /HTTP 502/],
      [(_, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>'), /not an MCP answer.*text\/html/],
      [(_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops'), /not an MCP answer/],
      [(_, response) => json(response, { hello: 'world' }), /not an MCP answer/],
    ];
    for (const [reply, detail] of cases) {
      lab.on('ping', reply);
      const result = await connection.probe(PROBE_MS);
      assert.equal(result.outcome, 'error-reply', result.detail);
      assert.match(result.detail ?? '', detail);
    }
  });

  void it('reads HTTP 401 as auth', async () => {
    const connection = await connect();
    lab.on('ping', (_, response) => response.writeHead(401).end());
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'auth');
  });

  void it('follows a redirect', async () => {
    const connection = await connect();
    let redirected = 0;
    lab.on('ping', (ping, response) => {
      if (redirected++ === 0) return void response.writeHead(307, { location: '/mcp' }).end();
      pong(ping, response);
    });
    const result = await connection.probe(PROBE_MS);
    assert.equal(result.outcome, 'ok', result.detail);
    assert.equal(lab.received('ping').length, 2, 'the redirected POST reached the server a second time');
  });

  void it('completes a probe when its answer arrives on an event stream the server keeps open, probe after probe', async () => {
    // Issue 9 defect 1: the node:http path waited for the stream to end, and its socket pool filled after 16 probes.
    const connection = await connect();
    const neighbour = await connect();
    lab.on('ping', (ping, response) =>
      ping.headers['mcp-session-id'] === 'session-1' ? pongOnOpenStream(ping, response) : pong(ping, response),
    );
    const baseline = lab.openSockets();
    for (let round = 0; round < 25; round++) {
      const result = await connection.probe(PROBE_MS);
      assert.equal(result.outcome, 'ok', `probe ${round + 1}: ${result.detail}`);
    }
    // Each answered probe lets its stream go: the server is left holding no more sockets than before, give or take
    // the one the last probe is releasing.
    assert.ok(await waitUntil(() => lab.openSockets() <= baseline + 1, 5000), `${lab.openSockets()} sockets open, ${baseline} before`);
    const other = await neighbour.probe(PROBE_MS);
    assert.equal(other.outcome, 'ok', `another session on the same origin: ${other.detail}`);
  });

  void it('fails a probe at once when the event-stream reply ends without the answer', async () => {
    // Issue 9 defect 11: this used to wait out the whole probe timeout.
    const connection = await connect();
    lab.on('ping', (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}\n\n`);
    });
    const result = await connection.probe(60_000);
    assert.equal(result.outcome, 'failed');
    assert.match(result.detail ?? '', /ended its event-stream reply without the answer/);
  });

  void it('never sends a timed-out ping again, and leaves no request open', async () => {
    // Issue 9 defect 3: the node:http path re-sent the ping when its own socket was destroyed, after the DELETE.
    const connection = await connect();
    // A first probe leaves a kept-alive socket behind, the kind a stale-socket retry fires on.
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    const held: QuirkyRequest[] = [];
    lab.on('ping', (ping) => held.push(ping));
    const result = await connection.probe(300);
    assert.equal(result.outcome, 'timeout');
    assert.equal(held.length, 1);
    const [ping] = held;
    assert.ok(await waitUntil(() => ping.request.destroyed || ping.socket.destroyed, 5000), 'the timed-out request was cancelled');
    await connection.close();
    assert.equal(lab.deletes.length, 1, 'the session was ended');
    const beforeWait = lab.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(lab.received('ping').length, 2, 'the timed-out ping was sent once');
    assert.equal(lab.requests.length, beforeWait, 'nothing was sent after the session ended');
    assert.ok(await waitUntil(() => lab.openSockets() === 0, 5000), `${lab.openSockets()} sockets still open`);
  });

  void it('a probe whose socket the server drops is answered by the failure, never sent again', async () => {
    const connection = await connect();
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    lab.on('ping', (ping) => ping.socket.destroy());
    const result = await connection.probe(PROBE_MS);
    assert.notEqual(result.outcome, 'ok');
    assert.notEqual(result.outcome, 'timeout', 'a dropped socket is seen at once');
    assert.equal(lab.received('ping').length, 2);
  });

  void it('close() cuts a probe the server holds, and the socket with it', async () => {
    const connection = await connect();
    let held: QuirkyRequest | undefined;
    lab.on('ping', (ping) => (held = ping));
    const probe = connection.probe(10_000);
    assert.ok(await waitUntil(() => held !== undefined, 5000));
    const socketClosed = new Promise((resolve) => held?.socket.once('close', resolve));
    await connection.close();
    assert.equal((await probe).outcome, 'closed');
    await socketClosed;
  });
});
