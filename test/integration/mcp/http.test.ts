// The Node connector over Streamable HTTP and legacy SSE, against real servers on 127.0.0.1.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ServerError } from '../../../src/core/model';
import { createNodeConnector } from '../../../src/mcp';
import { freePort, startEverythingHttp, startFaultHttp, startModernHttp, startSilentTcp, type RunningServer } from '../../helpers/servers';
import { collectingLogger, connectError, httpServer, OpenConnections } from './support';

const CONNECT_MS = 10_000;
const connections = new OpenConnections();
afterEach(() => connections.closeAll());

function startedServers(): { add(server: RunningServer): RunningServer; stopAll(): Promise<void> } {
  const started: RunningServer[] = [];
  return {
    add(server) {
      started.push(server);
      return server;
    },
    stopAll: async () => {
      await Promise.all(started.splice(0).map((server) => server.stop()));
    },
  };
}

void describe('Streamable HTTP: server-everything', () => {
  const servers = startedServers();
  let everything: RunningServer;
  before(async () => {
    everything = servers.add(await startEverythingHttp('streamableHttp'));
  });
  after(() => servers.stopAll());

  void it('connects on the handshake era and answers ping', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(httpServer('everything', everything.url), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(connection.era, 'handshake');
    assert.equal(connection.serverInfo?.name, 'mcp-servers/everything');
    assert.equal(connection.pid, null);
    let activity = 0;
    connection.onActivity(() => activity++);
    for (let i = 0; i < 3; i++) {
      const result = await connection.probe(3000);
      assert.equal(result.outcome, 'ok', result.detail);
      assert.ok(typeof result.rttMs === 'number' && result.rttMs > 0);
    }
    assert.ok(activity >= 3);
    assert.equal((await connection.probe(3000, 'tools/list')).outcome, 'ok');
  });

  void it('connects with the handshake hint too', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(httpServer('everything', everything.url), { timeoutMs: CONNECT_MS, eraHint: 'handshake' }),
    );
    assert.equal((await connection.probe(3000)).outcome, 'ok');
  });
});

void describe('legacy SSE: server-everything', () => {
  const servers = startedServers();
  let everything: RunningServer;
  before(async () => {
    everything = servers.add(await startEverythingHttp('sse'));
  });
  after(() => servers.stopAll());

  void it('connects over SSE and answers ping', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(httpServer('everything-sse', everything.url, 'sse'), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(connection.era, 'handshake');
    assert.equal(connection.serverInfo?.name, 'mcp-servers/everything');
    const result = await connection.probe(3000);
    assert.equal(result.outcome, 'ok', result.detail);
  });

  void it('falls back to SSE when an http server answers the POST the legacy way', async () => {
    const logger = collectingLogger();
    const connection = connections.add(
      await createNodeConnector({ logger }).connect(httpServer('everything-sse', everything.url, 'http'), { timeoutMs: CONNECT_MS }),
    );
    assert.equal((await connection.probe(3000)).outcome, 'ok');
    assert.ok(logger.lines.some((line) => /legacy HTTP\+SSE/.test(line)));
  });
});

void describe('modern era over HTTP', () => {
  const servers = startedServers();
  let modern: RunningServer;
  before(async () => {
    modern = servers.add(await startModernHttp());
  });
  after(() => servers.stopAll());

  void it('finds the modern era and probes with server/discover', async () => {
    const connection = connections.add(await createNodeConnector().connect(httpServer('modern', modern.url), { timeoutMs: CONNECT_MS }));
    assert.equal(connection.era, 'modern');
    assert.equal(connection.protocolVersion, '2026-07-28');
    const result = await connection.probe(3000);
    assert.equal(result.method, 'server/discover');
    assert.equal(result.outcome, 'ok', result.detail);
    assert.equal((await connection.probe(3000, 'tools/list')).outcome, 'ok');
  });

  void it('a ping on a modern server is refused, as the protocol says', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(httpServer('modern', modern.url), { timeoutMs: CONNECT_MS, eraHint: 'modern' }),
    );
    const result = await connection.probe(3000, 'ping');
    assert.equal(result.outcome, 'error-reply');
    assert.match(result.detail ?? '', /-32601/);
  });
});

void describe('HTTP faults', () => {
  const servers = startedServers();
  after(() => servers.stopAll());

  void it('401 -> ConnectError auth', async () => {
    const server = servers.add(await startFaultHttp('http', 'status:401'));
    const error = await connectError(createNodeConnector().connect(httpServer('locked', server.url), { timeoutMs: CONNECT_MS }));
    assert.equal(error.kind, 'auth');
    assert.equal(error.details.httpStatus, 401);
  });

  void it('403 over SSE -> ConnectError auth', async () => {
    const server = servers.add(await startFaultHttp('sse', 'status:403'));
    const error = await connectError(createNodeConnector().connect(httpServer('locked', server.url, 'sse'), { timeoutMs: CONNECT_MS }));
    assert.equal(error.kind, 'auth');
    assert.equal(error.details.httpStatus, 403);
  });

  void it('a TCP listener that never answers -> timeout within the bound', async () => {
    const server = servers.add(await startSilentTcp());
    const startedAt = performance.now();
    const error = await connectError(createNodeConnector().connect(httpServer('silent', `${server.url}/mcp`), { timeoutMs: 1000 }));
    const elapsed = performance.now() - startedAt;
    assert.equal(error.kind, 'timeout');
    assert.ok(elapsed < 1000 + 1500, `gave up after ${elapsed.toFixed(0)} ms`);
  });

  void it('nothing listening -> unreachable', async () => {
    const port = await freePort();
    const error = await connectError(
      createNodeConnector().connect(httpServer('gone', `http://127.0.0.1:${port}/mcp`), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(error.kind, 'unreachable');
    assert.match(error.message, /refused/);
  });

  void it('an expired session (404) is re-initialized transparently', async () => {
    const server = servers.add(await startFaultHttp('http', 'expire-session:2'));
    const connection = connections.add(await createNodeConnector().connect(httpServer('forgetful', server.url), { timeoutMs: CONNECT_MS }));
    for (let i = 0; i < 5; i++) {
      const result = await connection.probe(3000);
      assert.equal(result.outcome, 'ok', `probe ${i}: ${result.outcome} ${result.detail ?? ''}`);
    }
  });

  const outcomes = [
    { fault: 'nonempty-pong', outcome: 'non-empty' },
    { fault: 'error-pong', outcome: 'error-reply' },
  ] as const;
  for (const { fault, outcome } of outcomes) {
    void it(`${fault} over HTTP -> ${outcome}`, async () => {
      const server = servers.add(await startFaultHttp('http', fault));
      const connection = connections.add(await createNodeConnector().connect(httpServer(fault, server.url), { timeoutMs: CONNECT_MS }));
      assert.equal((await connection.probe(3000)).outcome, outcome);
    });
  }

  void it('a server gone after connect fails the probe, naming why', async () => {
    const server = await startFaultHttp('http', 'none');
    const connection = connections.add(await createNodeConnector().connect(httpServer('vanishing', server.url), { timeoutMs: CONNECT_MS }));
    await server.stop();
    const result = await connection.probe(2000);
    assert.equal(result.outcome, 'failed');
    assert.match(result.detail ?? '', /ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET/);
  });

  void it('a dropped legacy SSE stream ends the connection at once', async () => {
    // The stream is dropped once the connect has finished: a timer started with the stream could fire mid-connect on a
    // loaded machine, and the connect's own POST would then go to a session the server had already forgotten.
    const server = servers.add(await startFaultHttp('sse', 'drop-sse-on-signal'));
    const connection = connections.add(
      await createNodeConnector().connect(httpServer('dropper', server.url, 'sse'), { timeoutMs: CONNECT_MS }),
    );
    const closed = new Promise<ServerError>((resolve) => connection.onClose(resolve));
    process.kill(server.pid, 'SIGUSR2');
    const info = await closed;
    assert.equal(info.kind, 'unreachable');
    assert.equal((await connection.probe(1000)).outcome, 'closed');
  });

  void it('hang-ping over SSE -> timeout, and the connection still closes promptly', async () => {
    const server = servers.add(await startFaultHttp('sse', 'hang-ping'));
    const connection = await createNodeConnector().connect(httpServer('hang', server.url, 'sse'), { timeoutMs: CONNECT_MS });
    const startedAt = performance.now();
    const result = await connection.probe(500);
    assert.equal(result.outcome, 'timeout');
    assert.ok(performance.now() - startedAt < 500 + 1000);
    const closingAt = performance.now();
    await connection.close();
    assert.ok(performance.now() - closingAt < 3000);
  });
});

void describe('HTTP session end', () => {
  let deletes = 0;
  let posts = 0;
  let standbyStreams = 0;
  const recorder = createServer((request: IncomingMessage, response) => {
    if (request.method === 'DELETE') {
      deletes++;
      response.writeHead(200).end();
      return;
    }
    if (request.method === 'GET') {
      // A standby stream the server closes at once, as proxies that drop idle streams do.
      standbyStreams++;
      response.writeHead(200, { 'content-type': 'text/event-stream' }).end();
      return;
    }
    posts++;
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) {
        response.writeHead(202).end();
        return;
      }
      const result =
        message.method === 'initialize'
          ? { protocolVersion: message.params?.protocolVersion, capabilities: {}, serverInfo: { name: 'recorder', version: '1' } }
          : message.method === 'server/discover'
            ? undefined
            : {};
      response.writeHead(result === undefined ? 400 : 200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' });
      response.end(
        JSON.stringify(
          result === undefined
            ? { jsonrpc: '2.0', id: message.id, error: { code: -32000, message: 'Server not initialized' } }
            : { jsonrpc: '2.0', id: message.id, result },
        ),
      );
    });
  });
  before(() => new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve)));
  after(() => new Promise<void>((resolve) => recorder.close(() => resolve())));

  void it('close() ends the server session with a DELETE', async () => {
    const { port } = recorder.address() as AddressInfo;
    const connection = await createNodeConnector().connect(httpServer('recorder', `http://127.0.0.1:${port}/mcp`), {
      timeoutMs: CONNECT_MS,
    });
    try {
      assert.equal((await connection.probe(2000)).outcome, 'ok');
      assert.ok(posts >= 2);
    } finally {
      await connection.close();
    }
    assert.equal(deletes, 1);
  });

  it('does not keep reopening a standby stream the server closes', async () => {
    const { port } = recorder.address() as AddressInfo;
    const before = standbyStreams;
    const connection = connections.add(
      await createNodeConnector().connect(httpServer('recorder', `http://127.0.0.1:${port}/mcp`), { timeoutMs: CONNECT_MS }),
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.ok(standbyStreams - before <= 1, `${standbyStreams - before} standby GETs in 3 s`);
    assert.equal((await connection.probe(2000)).outcome, 'ok');
  });
});
