// Proxies and credentials in URLs (issue 9 decisions): the CLI honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY as curl
// does, never proxies loopback, and sends `user:password@` in a server URL as Basic auth without ever printing it.
// Against a forward proxy of our own on 127.0.0.1 that counts what passes through it and sends everything to
// 127.0.0.1, so a server "elsewhere" (a host name under .invalid) is reachable only through it.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { createNodeConnector } from '../../../src/mcp';
import { proxiedFetch } from '../../../src/mcp/httpProxy';
import { runCli as runCliIn, type CliRun } from '../../helpers/cli';
import { CountingProxy, ELSEWHERE } from '../../helpers/countingProxy';
import { answer, json, QuirkyHttpServer } from './quirkyHttp';
import { connectError, httpServer } from './support';

const CONNECT_MS = 10_000;

/** `check --json` on this config, with only the proxy variables given here (none of the developer's own). */
async function runCli(config: object, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-proxy-'));
  const file = path.join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify(config));
  try {
    return await runCliIn(['check', '--config', file, '--json', '--connect-timeout-ms', '10000'], { env, dropEnv: /^(https?|no)_proxy$/i });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void describe('the extension: VS Code patches the global fetch with its http.proxy settings', () => {
  const lab = new QuirkyHttpServer();
  before(() => lab.listen());
  after(() => lab.close());

  void it('connects and probes go through globalThis.fetch as it is at request time', async () => {
    // VS Code's extension host (src/vs/workbench/api/node/proxyResolver.ts) replaces globalThis.fetch before extensions
    // run; the default connector must use whatever is there when a request goes out, not a copy taken earlier.
    const connector = createNodeConnector();
    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return original(input, init);
    };
    try {
      const connection = await connector.connect(httpServer('patched', lab.url()), { timeoutMs: CONNECT_MS, eraHint: 'handshake' });
      const before = seen.length;
      assert.equal((await connection.probe(3000)).outcome, 'ok');
      assert.ok(seen.length > before, 'the probe went through the patched fetch');
      await connection.close();
    } finally {
      globalThis.fetch = original;
      connector.dispose?.();
    }
    assert.ok(seen.length >= 3 && seen.every((url) => url.startsWith(lab.url())), seen.join(', '));
  });
});

void describe('HTTP servers through a proxy', () => {
  const proxy = new CountingProxy();
  const lab = new QuirkyHttpServer();
  before(() => Promise.all([proxy.listen(), lab.listen()]));
  after(() => Promise.all([proxy.close(), lab.close()]));
  beforeEach(() => {
    proxy.seen.length = 0;
    lab.reset();
  });

  const port = (): string => new URL(lab.url()).port;
  const elsewhere = (): string => `http://${ELSEWHERE}:${port()}/mcp`;

  void it('a server elsewhere is reached through the proxy, probes included', async () => {
    const http = proxiedFetch({ httpProxy: proxy.url() });
    const connector = createNodeConnector({ http });
    try {
      const connection = await connector.connect(httpServer('far', elsewhere()), { timeoutMs: CONNECT_MS });
      assert.equal((await connection.probe(3000)).outcome, 'ok');
      await connection.close();
    } finally {
      connector.dispose?.();
    }
    assert.ok(proxy.seen.length >= 1, 'the proxy carried the requests');
    assert.ok(
      proxy.seen.every((entry) => entry.target.startsWith(ELSEWHERE)),
      'to the configured host',
    );
    assert.equal(lab.received('ping').length, 1);
  });

  void it('NO_PROXY takes a host out; loopback is never proxied', async () => {
    const excluded = proxiedFetch({ httpProxy: proxy.url(), noProxy: `${ELSEWHERE},example.invalid` });
    const connector = createNodeConnector({ http: excluded });
    try {
      const error = await connectError(connector.connect(httpServer('far', elsewhere()), { timeoutMs: CONNECT_MS }));
      assert.match(error.message, /ENOTFOUND|EAI_AGAIN/, 'looked up directly, not proxied');
      const local = await connector.connect(httpServer('near', lab.url()), { timeoutMs: CONNECT_MS });
      assert.equal((await local.probe(3000)).outcome, 'ok');
      await local.close();
    } finally {
      connector.dispose?.();
    }
    assert.equal(proxy.seen.length, 0);
  });

  void it('credentials in the proxy URL go to the proxy as Proxy-Authorization', async () => {
    const connector = createNodeConnector({ http: proxiedFetch({ httpProxy: proxy.url('me:pr0xy-pass@') }) });
    try {
      const connection = await connector.connect(httpServer('far', elsewhere()), { timeoutMs: CONNECT_MS });
      await connection.close();
    } finally {
      connector.dispose?.();
    }
    assert.equal(proxy.seen[0]?.headers['proxy-authorization'], `Basic ${Buffer.from('me:pr0xy-pass').toString('base64')}`);
  });

  void it('mcp-health check honours http_proxy and HTTPS_PROXY-style variables, and leaves loopback alone', async () => {
    const far = await runCli({ servers: { far: { type: 'http', url: elsewhere() } } }, { http_proxy: proxy.url() });
    assert.equal(far.code, 0, far.stdout + far.stderr);
    assert.ok(proxy.seen.length >= 1);
    proxy.seen.length = 0;
    const near = await runCli({ servers: { near: { type: 'http', url: lab.url() } } }, { HTTP_PROXY: proxy.url() });
    assert.equal(near.code, 0, near.stdout + near.stderr);
    assert.equal(proxy.seen.length, 0, 'loopback went direct');
  });
});

void describe('credentials written in a server URL', () => {
  const lab = new QuirkyHttpServer();
  const password = 'p@ss:w0rd-secret';
  const expected = `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`;
  before(() => lab.listen());
  after(() => lab.close());
  beforeEach(() => lab.reset());
  afterEach(() => lab.reset());

  const withCredentials = (): string => lab.url().replace('http://', `http://alice:${encodeURIComponent(password)}@`);
  const requireBasic = (): void => {
    for (const method of ['initialize', 'ping', 'server/discover']) {
      const inner = method === 'initialize' ? undefined : method;
      lab.on(method, (request, response) => {
        if (request.headers.authorization !== expected) return void response.writeHead(401).end();
        if (inner === 'ping') return json(response, answer(request, {}));
        if (inner === 'server/discover')
          return json(response, { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } }, 404);
        response.setHeader('mcp-session-id', 'session-basic');
        json(
          response,
          answer(request, {
            protocolVersion: request.params?.protocolVersion,
            capabilities: {},
            serverInfo: { name: 'basic', version: '1' },
          }),
        );
      });
    }
  };

  void it('are sent as Basic auth, like curl', async () => {
    requireBasic();
    const connector = createNodeConnector();
    const connection = await connector.connect(httpServer('basic', withCredentials()), { timeoutMs: CONNECT_MS });
    assert.equal((await connection.probe(3000)).outcome, 'ok');
    await connection.close();
    assert.ok(lab.requests.every((request) => request.headers.authorization === expected));
  });

  void it('a configured Authorization header wins over them', async () => {
    lab.on('initialize', (request, response) =>
      request.headers.authorization === 'Bearer t'
        ? json(
            response,
            answer(request, {
              protocolVersion: request.params?.protocolVersion,
              capabilities: {},
              serverInfo: { name: 'b', version: '1' },
            }),
          )
        : response.writeHead(401).end(),
    );
    const connection = await createNodeConnector().connect(
      httpServer('bearer', withCredentials(), 'http', { headers: { Authorization: 'Bearer t' } }),
      { timeoutMs: CONNECT_MS, eraHint: 'handshake' },
    );
    await connection.close();
  });

  void it('never appear in an error, from the connector or the CLI', async () => {
    lab.on('initialize', (_, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end('nope'));
    lab.on('server/discover', (_, response) => response.writeHead(500).end());
    const error = await connectError(createNodeConnector().connect(httpServer('basic', withCredentials()), { timeoutMs: CONNECT_MS }));
    assert.doesNotMatch(error.message, /w0rd|alice/);
    const invalid = await connectError(
      createNodeConnector().connect(httpServer('bad', `http://alice:${password}@[bad/mcp`), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(invalid.kind, 'config');
    assert.doesNotMatch(invalid.message, /w0rd/);
    const cli = await runCli({ servers: { basic: { type: 'http', url: withCredentials() } } }, {});
    assert.equal(cli.code, 1);
    assert.doesNotMatch(cli.stdout + cli.stderr, /w0rd/);
  });
});
