// What a connect reports, against servers on 127.0.0.1 that behave as real ones do (issue 9): a handshake-era server
// answering `server/discover` with a 5xx or not at all is still up; an initialize result that is not an object is a
// protocol violation at once; TLS and network failures of the `http` type name their cause.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createNodeConnector } from '../../../src/mcp';
import { answer, json, QuirkyHttpServer } from './quirkyHttp';
import { connectError, httpServer, peer, PEERS, quirkyLab, stdioServer } from './support';

const CONNECT_MS = 10_000;

void describe('era over HTTP: a handshake-era server that fumbles server/discover', () => {
  const { lab, connections, connector } = quirkyLab();

  const connect = async (timeoutMs = CONNECT_MS) => connections.add(await connector().connect(httpServer('lab', lab.url()), { timeoutMs }));

  const upAfterDiscover = async (what: string, timeoutMs?: number) => {
    const connection = await connect(timeoutMs);
    assert.equal(connection.era, 'handshake', what);
    assert.equal(lab.received('server/discover').length, 1, 'server/discover tried once');
    assert.equal(lab.received('initialize').length, 1, 'then initialize');
    assert.equal((await connection.probe(3000)).outcome, 'ok');
  };

  void it('a 500 without a body: falls back to initialize and is up', async () => {
    lab.on('server/discover', (_, response) => response.writeHead(500).end());
    await upAfterDiscover('500, empty');
  });

  void it('a 500 with a JSON-RPC error body, and a 503 with HTML: falls back to initialize and is up', async () => {
    lab.on('server/discover', (request, response) =>
      json(response, { jsonrpc: '2.0', id: request.id, error: { code: -32603, message: 'Internal error' } }, 500),
    );
    await upAfterDiscover('500, JSON-RPC error');
    await connections.closeAll();
    lab.reset();
    lab.on('server/discover', (_, response) =>
      response.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Service Unavailable</h1>'),
    );
    await upAfterDiscover('503, HTML');
  });

  void it('server/discover never answered: initialize is tried within the connect timeout', async () => {
    lab.on('server/discover', () => undefined);
    await upAfterDiscover('silent', 4000);
  });

  void it('down only when initialize fails too', async () => {
    lab.on('server/discover', (_, response) => response.writeHead(500).end());
    lab.on('initialize', (_, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('still broken'));
    const error = await connectError(connector().connect(httpServer('lab', lab.url()), { timeoutMs: CONNECT_MS }));
    assert.equal(error.kind, 'unreachable');
    assert.match(error.message, /HTTP 500/);
    assert.equal(lab.received('initialize').length, 1);
  });
});

void describe('an initialize result that is not an object', () => {
  const lab = new QuirkyHttpServer();
  before(() => lab.listen());
  after(() => lab.close());

  for (const [label, result] of [
    ['null', null],
    ['a string', 'ok'],
  ] as const) {
    void it(`HTTP, ${label}: a protocol violation, not a connect timeout`, async () => {
      lab.reset();
      lab.on('initialize', (request, response) => json(response, answer(request, result)));
      for (const eraHint of [undefined, 'handshake'] as const) {
        const error = await connectError(createNodeConnector().connect(httpServer('lab', lab.url()), { timeoutMs: 30_000, eraHint }));
        assert.equal(error.kind, 'protocol-violation', error.message);
        assert.doesNotMatch(error.message, /invalid_union|"code":/, 'no schema dump');
      }
    });

    void it(`stdio, ${label}: a protocol violation, not a connect timeout`, async () => {
      for (const eraHint of [undefined, 'handshake'] as const) {
        const server = stdioServer('bad-init', peer('bad-initialize-result.mjs', result === null ? 'null' : 'string'));
        const error = await connectError(createNodeConnector().connect(server, { timeoutMs: 30_000, eraHint }));
        assert.equal(error.kind, 'protocol-violation', error.message);
        assert.match(error.message, /initialize .*not an object/);
      }
    });
  }
});

/** A throwaway CA and certificates made with openssl, in a temp directory removed at the end. */
function makeCertificates(
  dir: string,
): Record<'caCert' | 'selfSigned' | 'selfSignedKey' | 'leafKey' | 'leafFor127' | 'leafForLocalhost' | 'leafExpired', string> {
  const run = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const at = (name: string): string => path.join(dir, name);
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=MCP Health test CA',
  );
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'self.key',
    '-out',
    'self.pem',
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  );
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(at('ip.ext'), 'subjectAltName=IP:127.0.0.1\n');
  writeFileSync(at('dns.ext'), 'subjectAltName=DNS:localhost\n');
  const sign = (out: string, ext: string, days: string): void =>
    run(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      String(Math.floor(Math.random() * 1e9)),
      '-days',
      days,
      '-extfile',
      ext,
      '-out',
      out,
    );
  sign('ip.pem', 'ip.ext', '2');
  sign('dns.pem', 'dns.ext', '2');
  // A negative validity: not after is a day before not before, so the certificate is expired from the start.
  sign('expired.pem', 'ip.ext', '-1');
  const read = (name: string): string => readFileSync(at(name), 'utf8');
  return {
    caCert: at('ca.pem'),
    selfSigned: read('self.pem'),
    selfSignedKey: read('self.key'),
    leafKey: read('leaf.key'),
    leafFor127: read('ip.pem'),
    leafForLocalhost: read('dns.pem'),
    leafExpired: read('expired.pem'),
  };
}

/** Connects from a child process that trusts `caFile`, as a user who installed their company's CA would. */
function connectTrusting(caFile: string, urls: string[]): Promise<Array<{ url: string; ok?: boolean; kind?: string; message?: string }>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(PEERS, 'connect-once.ts'), ...urls], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', () =>
      resolve(
        out
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { url: string }),
      ),
    );
  });
}

void describe('the http type names why it could not connect', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-tls-'));
  const certs = makeCertificates(dir);
  const servers = {
    selfSigned: new QuirkyHttpServer({ key: certs.selfSignedKey, cert: certs.selfSigned }),
    unknownCa: new QuirkyHttpServer({ key: certs.leafKey, cert: certs.leafFor127 }),
    wrongName: new QuirkyHttpServer({ key: certs.leafKey, cert: certs.leafForLocalhost }),
    expired: new QuirkyHttpServer({ key: certs.leafKey, cert: certs.leafExpired }),
  };
  before(() => Promise.all(Object.values(servers).map((server) => server.listen())));
  after(async () => {
    await Promise.all(Object.values(servers).map((server) => server.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  void it('a self-signed certificate and one from an unknown CA', async () => {
    const selfSigned = await connectError(
      createNodeConnector().connect(httpServer('tls', servers.selfSigned.url()), { timeoutMs: CONNECT_MS }),
    );
    assert.match(selfSigned.message, /self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
    assert.doesNotMatch(selfSigned.message, /fetch failed/);
    const unknownCa = await connectError(
      createNodeConnector().connect(httpServer('tls', servers.unknownCa.url()), { timeoutMs: CONNECT_MS }),
    );
    assert.match(unknownCa.message, /unknown CA \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
  });

  void it('with the CA trusted: a host-name mismatch and an expired certificate, and a good one connects', async () => {
    const [good, wrongName, expired] = await connectTrusting(certs.caCert, [
      servers.unknownCa.url(),
      servers.wrongName.url(),
      servers.expired.url(),
    ]);
    assert.equal(good.ok, true, good.message);
    assert.match(wrongName.message ?? '', /does not match the host name \(ERR_TLS_CERT_ALTNAME_INVALID\)/);
    assert.match(expired.message ?? '', /has expired \(CERT_HAS_EXPIRED\)/);
  });

  void it('a refused connection and an unknown host', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const refused = await connectError(
      createNodeConnector().connect(httpServer('refused', `http://127.0.0.1:${closedPort}/mcp`), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(refused.kind, 'unreachable');
    assert.match(refused.message, /connection refused \(ECONNREFUSED\)/);
    const unknown = await connectError(
      createNodeConnector().connect(httpServer('nx', 'http://mcp-health-test.invalid/mcp'), { timeoutMs: CONNECT_MS }),
    );
    assert.match(unknown.message, /host not found \(ENOTFOUND\)|host name lookup failed \(EAI_AGAIN\)/);
  });
});
