// Probes go out without a signal of their own once the server has ended a reply by itself, as the SDK sends its own
// requests, and get one again as soon as the server keeps a reply open or a probe times out (src/mcp/probeRelease.ts).
// Against the scriptable server (quirkyHttp.ts), through a fetch that records the signal of every POST.

import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import type { Connection } from '../../../src/core/connection';
import { createNodeConnector } from '../../../src/mcp';
import { OPEN_REPLY_GRACE_MS } from '../../../src/mcp/probeRelease';
import { waitUntil } from '../../helpers/wait';
import { answer, json, QuirkyHttpServer, type QuirkyRequest, type Reply } from './quirkyHttp';
import { httpServer, OpenConnections } from './support';

const PROBE_MS = 3000;

const pong = (request: QuirkyRequest, response: ServerResponse): void => json(response, answer(request, {}));

const pongOnStream =
  (keepOpen: boolean): Reply =>
  (request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = `event: message\ndata: ${JSON.stringify(answer(request, {}))}\n\n`;
    if (keepOpen) response.write(event);
    else response.end(event);
  };

void describe('releasing probe requests', () => {
  const lab = new QuirkyHttpServer();
  const connections = new OpenConnections();
  /** The signal fetch got for each ping, in order: the transport's own one is the same object every time. */
  let pingSignals: Array<AbortSignal | null | undefined> = [];
  let connector = createNodeConnector();

  beforeEach(async () => {
    if (!lab.server.listening) await lab.listen();
    lab.reset();
    pingSignals = [];
    connector = createNodeConnector({
      http: {
        fetch: (url, init) => {
          if (typeof init?.body === 'string' && init.body.includes('"method":"ping"')) pingSignals.push(init.signal);
          return fetch(url, init);
        },
        dispose: () => undefined,
      },
    });
  });
  afterEach(async () => {
    await connections.closeAll();
    connector.dispose?.();
  });
  after(() => lab.close());

  const connect = async (): Promise<Connection> =>
    connections.add(await connector.connect(httpServer('lab', lab.url()), { timeoutMs: 10_000, eraHint: 'handshake' }));

  /** How many of the pings went out with a signal of their own, as against the transport's one shared signal. */
  const ownSignals = (from: number): number => {
    const shared = pingSignals.filter((signal, index) => pingSignals.indexOf(signal) !== index);
    return pingSignals.slice(from).filter((signal) => !shared.includes(signal)).length;
  };

  void it('after a JSON reply read whole, probes go out as the SDK sends its own requests, on kept-alive sockets', async () => {
    lab.on('ping', pong);
    const connection = await connect();
    for (let round = 0; round < 10; round++) assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    assert.equal(pingSignals.length, 10);
    // The release is judged a tick after the answer, so a probe sent in the same tick as the first answer has one too.
    assert.ok(ownSignals(0) <= 2, `${ownSignals(0)} pings carried a signal of their own`);
    assert.equal(ownSignals(2), 0, 'none after the first two');
    const sockets = new Set(lab.received('ping').map((ping) => ping.socket)).size;
    assert.ok(sockets <= 4, `${sockets} sockets for 10 pings`);
  });

  void it('an event stream the server closes after the answer counts as a reply that ended by itself', async () => {
    lab.on('ping', pongOnStream(false));
    const connection = await connect();
    for (let round = 0; round < 6; round++) {
      assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
      // Probes an interval apart, as the monitor sends them: the stream's end is read by then.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(ownSignals(0) < 6, `${ownSignals(0)} of 6 pings had a signal of their own`);
    assert.equal(ownSignals(3), 0, 'the last three went without');
  });

  void it('a server that starts keeping its replies open gets signals back, and holds no more than a grace period of them', async () => {
    lab.on('ping', pong);
    const connection = await connect();
    for (let round = 0; round < 3; round++) assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    const baseline = lab.openSockets();
    lab.on('ping', pongOnStream(true));
    const sent = pingSignals.length;
    for (let round = 0; round < 12; round++) {
      assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok', `probe ${round + 1}`);
      await new Promise((resolve) => setTimeout(resolve, OPEN_REPLY_GRACE_MS / 4));
    }
    // The first open replies went out unsignalled until the grace ran out; every one after got a signal again.
    const unsignalled = 12 - ownSignals(sent);
    assert.ok(unsignalled >= 1 && unsignalled <= 6, `${unsignalled} pings went out without a signal`);
    assert.ok(ownSignals(sent + 6) === 6, 'the later ones all carried their own signal');
    assert.ok(
      await waitUntil(() => lab.openSockets() <= baseline + unsignalled + 1, 5000),
      `${lab.openSockets()} sockets open, ${baseline} before, ${unsignalled} left to the server`,
    );
    const neighbour = await connect();
    lab.on('ping', pong);
    assert.equal((await neighbour.probe(PROBE_MS)).outcome, 'ok', 'another session on the same origin still works');
  });

  void it('a probe that times out without a signal brings the signals back, so the next held one is cut', async () => {
    lab.on('ping', pong);
    const connection = await connect();
    for (let round = 0; round < 3; round++) assert.equal((await connection.probe(PROBE_MS)).outcome, 'ok');
    const held: QuirkyRequest[] = [];
    lab.on('ping', (ping) => held.push(ping));
    assert.equal((await connection.probe(200)).outcome, 'timeout');
    assert.equal((await connection.probe(200)).outcome, 'timeout');
    assert.equal(held.length, 2);
    assert.ok(
      await waitUntil(() => held[1].request.destroyed || held[1].socket.destroyed, 5000),
      'the second timed-out request, sent with a signal again, was cancelled',
    );
    assert.equal(held[0].socket.destroyed, false, 'the first stays with the server until the connection closes');
    await connection.close();
    assert.ok(await waitUntil(() => lab.openSockets() === 0, 5000), `${lab.openSockets()} sockets still open after close`);
  });
});
