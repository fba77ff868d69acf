// Each cause produced for real: a missing command, a self-signed HTTPS server, a 401 with WWW-Authenticate, a wrong
// path, a refused port, a server that exits at start. Through the real registry and the Node connector.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../../src/core/clock';
import { silentLogger } from '../../../src/core/logger';
import type { ServerConfig, ServerStatus } from '../../../src/core/model';
import { createRegistry } from '../../../src/core/monitor';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';
import { createNodeConnector } from '../../../src/mcp';
import { faultStdio, freePort, startFaultHttp, type RunningServer } from '../../helpers/servers';
import { serverConfig, userSource } from '../../helpers/serverConfig';
import { waitUntil } from '../../helpers/wait';

const source = userSource('/tmp/mcp-health-causes.json');

// No default command or arguments: each case names exactly what is launched.
function config(name: string, rest: Partial<ServerConfig>): ServerConfig {
  return serverConfig(name, { source, args: undefined, ...rest });
}

async function statusOf(server: ServerConfig): Promise<ServerStatus> {
  const registry = createRegistry({
    connector: createNodeConnector(),
    clock: systemClock,
    logger: silentLogger,
    settings: { ...defaultMonitorSettings, connectTimeoutMs: 10_000, startupTimeoutMs: 10_000 },
  });
  try {
    registry.setServers([server], []);
    await registry.pingNow();
    return registry.get(server.id)!;
  } finally {
    await registry.dispose();
  }
}

describe('causes produced by real failures', { timeout: 90_000 }, () => {
  let dir: string;
  let tls: Server;
  let tlsPort: number;
  const running: RunningServer[] = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-causes-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    tls = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) => response.end('{}'));
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    tlsPort = (tls.address() as { port: number }).port;
  });

  after(async () => {
    await Promise.all(running.map((server) => server.stop()));
    await new Promise<void>((resolve) => tls.close(() => resolve()));
    tls.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  });

  it('command not found, naming the command and the PATH the server saw', async () => {
    const status = await statusOf(
      config('npx-missing', { command: 'npx', args: ['-y', 'some-server'], env: { PATH: '/nonexistent/bin' } }),
    );
    assert.equal(status.state, 'down');
    assert.equal(status.cause?.id, 'command-not-found');
    assert.match(status.cause!.summary, /"npx" was not found on the PATH it saw \(\/nonexistent\/bin\)/);
    assert.match(status.cause!.nextStep, /Install Node\.js/);
  });

  it('permission denied on a command that is not executable', async () => {
    const script = path.join(dir, 'server.sh');
    writeFileSync(script, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const status = await statusOf(config('not-executable', { command: script }));
    assert.equal(status.lastError?.code, 'EACCES');
    assert.equal(status.cause?.id, 'permission-denied');
    assert.match(status.cause!.nextStep, /chmod \+x/);
  });

  it('exits at start, with the exit code and the last stderr line', async () => {
    const status = await statusOf(config('exits', faultStdio('exit:3')));
    assert.equal(status.cause?.id, 'exits-at-start', JSON.stringify(status.lastError));
    assert.match(status.cause!.summary, /exited with code 3 while starting/);
  });

  it('a Node server that throws at start: the thrown message and the variable it names, not "Node.js vX"', async () => {
    const script = path.join(dir, 'needs-key.cjs');
    writeFileSync(
      script,
      "if (!process.env.STRIPE_SECRET_KEY) throw new Error('Stripe API key not provided. Please either pass it as an argument --api-key=$KEY or set the STRIPE_SECRET_KEY environment variable.');\n",
    );
    const status = await statusOf(config('stripe', { command: process.execPath, args: [script] }));
    assert.equal(status.cause?.id, 'exits-at-start', JSON.stringify(status.lastError));
    assert.match(status.lastError?.stderrTail ?? '', /Node\.js v\d+/, 'the real stderr ends with the runtime trailer');
    assert.match(
      status.cause!.summary,
      /exited with code 1 while starting: Error: Stripe API key not provided\. .*STRIPE_SECRET_KEY environment variable\.$/,
    );
    assert.match(status.cause!.nextStep, /^Set STRIPE_SECRET_KEY in the "env" of "stripe"/);
    assert.deepEqual(status.cause!.fix, { key: 'env', name: 'STRIPE_SECRET_KEY' });
  });

  it('a server that ignores ping but answers tools/list', async () => {
    const server = config('ignores-ping', faultStdio('ignore-ping'));
    const registry = createRegistry({
      connector: createNodeConnector(),
      clock: systemClock,
      logger: silentLogger,
      settings: {
        ...defaultMonitorSettings,
        timeoutMs: 300,
        connectTimeoutMs: 10_000,
        startupTimeoutMs: 10_000,
        backoff: { initialMs: 50, maxMs: 100 },
        intervalMs: { stdio: 1_000, http: 1_000, sse: 1_000 },
      },
    });
    try {
      registry.setServers([server], []);
      registry.start();
      await waitUntil(() => Boolean(registry.get(server.id)?.nonConformant), 30_000, 50);
      const status = registry.get(server.id)!;
      assert.equal(status.state, 'suspect');
      assert.equal(status.cause?.id, 'ignores-ping', JSON.stringify(status.lastError));
    } finally {
      await registry.dispose();
    }
  });

  it('a self-signed certificate on an HTTPS server', async () => {
    const status = await statusOf(config('tls', { transport: 'http', url: `https://127.0.0.1:${tlsPort}/mcp` }));
    assert.equal(status.state, 'down');
    assert.equal(status.lastError?.code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
    assert.equal(status.cause?.id, 'tls-self-signed');
  });

  it('a 401 with a Bearer WWW-Authenticate challenge means OAuth sign-in', async () => {
    const server = await startFaultHttp('http', 'status:401');
    running.push(server);
    const status = await statusOf(config('oauth', { transport: 'http', url: server.url }));
    assert.equal(status.state, 'auth-required');
    assert.match(status.lastError?.authenticate ?? '', /^Bearer/);
    assert.equal(status.cause?.id, 'oauth-required');
    assert.match(status.cause!.nextStep, /Sign in through your MCP client/);
  });

  it('a 403 is refused credentials', async () => {
    const server = await startFaultHttp('http', 'status:403');
    running.push(server);
    const status = await statusOf(config('forbidden', { transport: 'http', url: server.url }));
    assert.equal(status.cause?.id, 'forbidden');
  });

  it('a wrong path on a live server', async () => {
    const server = await startFaultHttp('http');
    running.push(server);
    const status = await statusOf(config('wrong-path', { transport: 'http', url: `http://127.0.0.1:${server.port}/not-mcp` }));
    assert.equal(status.state, 'down');
    assert.equal(status.cause?.id, 'wrong-path', JSON.stringify(status.lastError));
  });

  it('a refused port', async () => {
    const port = await freePort();
    const status = await statusOf(config('refused', { transport: 'http', url: `http://127.0.0.1:${port}/mcp` }));
    assert.equal(status.lastError?.code, 'ECONNREFUSED');
    assert.equal(status.cause?.id, 'connection-refused');
  });
});
