// Streamable HTTP probes sent straight through node:http (src/mcp/httpProbe.ts), against a scriptable server on
// 127.0.0.1: the request must be the one the SDK transport would send, and every way a reply can come back or fail
// must read the same as before.

import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { Connector } from '../../../src/core/connection';
import { createNodeConnector } from '../../../src/mcp';
import { EventStreamParser } from '../../../src/mcp/httpProbe';
import { httpServer, OpenConnections } from './support';

const CONNECT_MS = 10_000;
const PROBE_MS = 3000;

interface PingRequest {
  readonly id: number;
  readonly headers: IncomingHttpHeaders;
  readonly socket: Socket;
  readonly requestsOnSocket: number;
}

type PingReply = (ping: PingRequest, response: ServerResponse) => void;

const json = (response: ServerResponse, message: unknown, status = 200): void => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(message));
};

/** Answers initialize and notifications like an SDK server; every ping goes to the current `reply`. */
function probeLab() {
  const pings: PingRequest[] = [];
  const requestsPerSocket = new WeakMap<Socket, number>();
  let reply: PingReply = (ping, response) => json(response, { jsonrpc: '2.0', id: ping.id, result: {} });
  let sessions = 0;
  const server = createServer((request: IncomingMessage, response) => {
    const socket = request.socket;
    const requestsOnSocket = (requestsPerSocket.get(socket) ?? 0) + 1;
    requestsPerSocket.set(socket, requestsOnSocket);
    if (request.method === 'DELETE') return void response.writeHead(200).end();
    if (request.method === 'GET') return void response.writeHead(405).end();
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) return void response.writeHead(202).end();
      if (message.method === 'initialize') {
        response.setHeader('mcp-session-id', `session-${++sessions}`);
        const result = { protocolVersion: message.params?.protocolVersion, capabilities: {}, serverInfo: { name: 'probe-lab', version: '1' } };
        return json(response, { jsonrpc: '2.0', id: message.id, result });
      }
      if (message.method !== 'ping') return json(response, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
      const ping = { id: message.id, headers: request.headers, socket, requestsOnSocket };
      pings.push(ping);
      reply(ping, response);
    });
  });
  return {
    server,
    pings,
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    answerWith(next: PingReply) {
      reply = next;
    },
    reset() {
      pings.length = 0;
      reply = (ping, response) => json(response, { jsonrpc: '2.0', id: ping.id, result: {} });
    },
  };
}

void describe('HTTP probes on node:http', () => {
  const lab = probeLab();
  const connections = new OpenConnections();
  let connector: Connector;
  before(() => new Promise<void>((resolve) => lab.server.listen(0, '127.0.0.1', resolve)));
  after(() => new Promise<void>((resolve) => lab.server.close(() => resolve())));
  beforeEach(() => {
    lab.reset();
    connector = createNodeConnector();
  });
  afterEach(async () => {
    await connections.closeAll();
    connector.dispose?.();
  });

  const connect = async (headers?: Record<string, string>) =>
    connections.add(await connector.connect(httpServer('lab', lab.url(), 'http', headers ? { headers } : {}), { timeoutMs: CONNECT_MS, eraHint: 'handshake' }));

  void it('sends the headers the SDK transport sends, with the configured ones', async () => {
    const connection = await connect({ 'X-Api-Key': 'k-123', Accept: 'application/x-custom' });
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    const { headers } = lab.pings[0];
    assert.equal(headers['mcp-session-id'], 'session-1');
    assert.equal(headers['mcp-protocol-version'], connection.protocolVersion);
    assert.equal(headers['x-api-key'], 'k-123');
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers.accept, 'application/x-custom, application/json, text/event-stream');
    assert.equal(headers['mcp-method'], undefined, 'handshake-era requests carry no body-derived headers');
  });

  void it('keeps one socket alive across probes, shared by the connections of a connector', async () => {
    const first = await connect();
    const second = await connect();
    for (let round = 0; round < 5; round++) {
      assert.equal((await first.probe(PROBE_MS)).outcome, 'ok');
      assert.equal((await second.probe(PROBE_MS)).outcome, 'ok');
    }
    assert.equal(lab.pings.length, 10);
    assert.equal(new Set(lab.pings.map((ping) => ping.socket)).size, 1);
    assert.equal(new Set(lab.pings.map((ping) => ping.headers['mcp-session-id'])).size, 2, 'each probe on its own session');
  });

  void it('reads an event-stream reply: priming event, a notification first, CRLF line ends', async () => {
    const connection = await connect();
    let activity = 0;
    connection.onActivity(() => activity++);
    lab.answerWith((ping, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('id: prime-1\r\ndata:\r\n\r\n');
      response.write(`event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\r\n\r\n`);
      // The answer split across writes, in the middle of a line.
      response.write(`data: {"jsonrpc":"2.0",`);
      setTimeout(() => response.end(`"id":${ping.id},"result":{}}\r\n\r\n`), 20);
    });
    const result = await connection.probe(PROBE_MS);
    assert.equal(result.outcome, 'ok', result.detail);
    assert.equal(activity, 2, 'the notification and the answer both count as activity');
  });

  void it('reads a batch reply', async () => {
    const connection = await connect();
    lab.answerWith((ping, response) =>
      json(response, [
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
        { jsonrpc: '2.0', id: ping.id, result: {} },
      ]),
    );
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
  });

  void it('still sees a non-empty pong and an error reply as sent', async () => {
    const connection = await connect();
    lab.answerWith((ping, response) => json(response, { jsonrpc: '2.0', id: ping.id, result: { status: 'ok' } }));
    const nonEmpty = await connection.probe(PROBE_MS);
    assert.equal(nonEmpty.outcome, 'non-empty');
    assert.match(nonEmpty.detail ?? '', /status/);
    lab.answerWith((ping, response) => json(response, { jsonrpc: '2.0', id: ping.id, error: { code: -32603, message: 'busy' } }));
    const error = await connection.probe(PROBE_MS);
    assert.equal(error.outcome, 'error-reply');
    assert.match(error.detail ?? '', /-32603: busy/);
  });

  void it('sends a probe again on a fresh socket when the server dropped the kept-alive one', async () => {
    const connection = await connect();
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    // A server closing an idle keep-alive socket just as the next probe arrives: the probe never reached it.
    lab.answerWith((ping, response) => {
      if (ping.requestsOnSocket > 1) ping.socket.destroy();
      else json(response, { jsonrpc: '2.0', id: ping.id, result: {} });
    });
    const result = await connection.probe(PROBE_MS);
    assert.equal(result.outcome, 'ok', result.detail);
    assert.equal(lab.pings.length, 3);
  });

  void it('names garbage: not JSON, not JSON-RPC, an unexpected content type, an HTTP error', async () => {
    const connection = await connect();
    const cases: Array<[PingReply, RegExp]> = [
      [(_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('<html>oops'), /not JSON: <html>oops/],
      [(_, response) => json(response, { hello: 'world' }), /not a JSON-RPC message/],
      [(_, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>'), /Unexpected content type: text\/html/],
      [(_, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('database down'), /HTTP 500.*database down/],
    ];
    for (const [reply, detail] of cases) {
      lab.answerWith(reply);
      const result = await connection.probe(PROBE_MS);
      assert.equal(result.outcome, 'failed');
      assert.match(result.detail ?? '', detail);
    }
  });

  void it('reads HTTP 401 as auth', async () => {
    const connection = await connect();
    lab.answerWith((_, response) => response.writeHead(401).end());
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'auth');
  });

  void it('follows a redirect through the SDK transport', async () => {
    const connection = await connect();
    let redirected = 0;
    lab.answerWith((ping, response) => {
      if (ping.headers['x-redirected'] === undefined && redirected++ === 0) {
        response.writeHead(307, { location: '/mcp' }).end();
        return;
      }
      json(response, { jsonrpc: '2.0', id: ping.id, result: {} });
    });
    const result = await connection.probe(PROBE_MS);
    assert.equal(result.outcome, 'ok', result.detail);
    assert.equal(lab.pings.length, 2, 'the redirected POST reached the server a second time');
  });

  void it('disposing the connector closes the kept-alive sockets at once', async () => {
    const connection = await connect();
    assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    const socket = lab.pings[0].socket;
    await connection.close();
    assert.equal(socket.destroyed, false, 'kept alive for the next probe while the connector lives');
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const started = performance.now();
    connector.dispose?.();
    await closed;
    // Well inside the 4 s a free socket would otherwise idle before closing itself.
    assert.ok(performance.now() - started < 1000);
  });

  void it('close() cuts a probe the server holds, and the socket with it', async () => {
    const connection = await connect();
    let held: PingRequest | undefined;
    lab.answerWith((ping) => (held = ping));
    const probe = connection.probe(10_000);
    while (!held) await new Promise((resolve) => setTimeout(resolve, 5));
    const socketClosed = new Promise((resolve) => held?.socket.once('close', resolve));
    const started = performance.now();
    await connection.close();
    assert.equal((await probe).outcome, 'closed');
    await socketClosed;
    assert.ok(performance.now() - started < 2000);
  });
});

void describe('EventStreamParser', () => {
  const stream = 'id: 1\ndata:\n\n: a comment\nevent: message\ndata: {"a":1}\n\nevent: other\ndata: {"skip":true}\n\ndata: {"b":\ndata: 2}\r\n\r\n';

  void it('gives the same messages however the stream is cut', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      for (const size of [1, 3, 7]) {
        const seen: string[] = [];
        const parser = new EventStreamParser((data) => seen.push(data));
        parser.push(stream.slice(0, cut));
        for (let at = cut; at < stream.length; at += size) parser.push(stream.slice(at, at + size));
        assert.deepEqual(seen, ['{"a":1}', '{"b":\n2}'], `cut at ${cut}, then chunks of ${size}`);
      }
    }
  });

  void it('refuses an event past its bound, split or not', () => {
    const parser = new EventStreamParser(() => undefined, 10);
    assert.throws(() => parser.push('data: 0123456789ABC\n'), /larger than/);
    const pieces = new EventStreamParser(() => undefined, 10);
    pieces.push('data: 012');
    assert.throws(() => pieces.push('3456789ABCDEF'), /larger than/);
  });
});
