// The scrape endpoint holds at most a fixed number of connections and closes those that send no complete request or
// sit idle, so idle or half-sent sockets cannot take the file descriptors the monitor needs to restart servers.
// Real sockets against the real server; the limits are injected small so the test waits on events, not on the clock.

import assert from 'node:assert/strict';
import * as http from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { serveMetrics, type MetricsHttpServer } from '../../../src/metrics/httpServer';

const LIMITS = { maxConnections: 4, headersTimeoutMs: 400, requestTimeoutMs: 400, idleTimeoutMs: 400, checkIntervalMs: 50 };
/** Only a bound for a broken build to fail in: the limits above close sockets well inside it. */
const WAIT_LIMIT_MS = 20_000;

const BODY = Buffer.from('# a metric\nup 1\n');
const render = () => Promise.resolve({ contentType: 'text/plain; version=0.0.4', body: { parts: [BODY], length: BODY.length } });

interface Peer {
  readonly socket: Socket;
  readonly received: () => number;
  readonly closed: Promise<void>;
}

/** A socket that connects and writes `text` (a request cut short, or nothing) and then only listens. */
function peer(port: number, text: string): Promise<Peer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => {
      if (text) socket.write(text);
      resolve({ socket, received: () => received, closed });
    });
    socket.once('error', reject);
  });
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${WAIT_LIMIT_MS} ms`)), WAIT_LIMIT_MS)),
  );
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function scrape(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

const HALF_SENT = 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n';

void describe('metrics endpoint limits', () => {
  const servers: MetricsHttpServer[] = [];
  const sockets: Socket[] = [];
  after(async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of servers) await server.close();
  });

  void it('refuses connections beyond the cap, closes half-sent ones after the headers timeout, and scrapes again', async () => {
    const server = await serveMetrics({ host: '127.0.0.1', port: 0 }, render, LIMITS);
    servers.push(server);
    const { port } = server.address;
    const holders: Peer[] = [];
    for (let i = 0; i < LIMITS.maxConnections; i++) holders.push(await peer(port, HALF_SENT));
    sockets.push(...holders.map((held) => held.socket));
    const extra: Peer[] = [];
    for (let i = 0; i < 6; i++) extra.push(await peer(port, HALF_SENT));
    sockets.push(...extra.map((held) => held.socket));
    // Beyond the cap: closed at once, before any answer (a request timeout would have answered 408 first).
    await within(Promise.all(extra.map((held) => held.closed)), 'the connections beyond the cap were not closed');
    assert.deepEqual(
      extra.map((held) => held.received()),
      extra.map(() => 0),
      'a connection beyond the cap is closed unanswered',
    );
    // The half-sent ones are closed by the headers timeout, and the endpoint serves the next scrape.
    await within(Promise.all(holders.map((held) => held.closed)), 'the half-sent requests were not timed out');
    const answer = await scrape(port);
    assert.equal(answer.status, 200);
    assert.equal(answer.body, BODY.toString('utf8'));
  });

  void it('closes a connection that never sends a byte, and one left idle after a scrape', async () => {
    const server = await serveMetrics({ host: '127.0.0.1', port: 0 }, render, LIMITS);
    servers.push(server);
    const { port } = server.address;
    const silent = await peer(port, '');
    sockets.push(silent.socket);
    await within(silent.closed, 'a silent connection was not closed');
    const keptAlive = await peer(port, `${HALF_SENT}Connection: keep-alive\r\n\r\n`);
    sockets.push(keptAlive.socket);
    await within(keptAlive.closed, 'an idle keep-alive connection was not closed');
    assert.ok(keptAlive.received() > BODY.length, 'the keep-alive connection got its answer before it was closed');
    assert.equal((await scrape(port)).status, 200);
  });
});
