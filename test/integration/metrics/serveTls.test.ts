// /probe of an HTTPS server reports its certificate's expiry: a certificate made with openssl for ten days, served on
// 127.0.0.1 by a TLS front of a real MCP server, trusted by `mcp-health serve` through NODE_EXTRA_CA_CERTS.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as tls from 'node:tls';
import { startFaultHttp, type RunningServer } from '../../helpers/servers';
import { sampleValue, startServe, type ServeProcess } from './serveProcess';

describe('mcp-health serve: TLS certificate expiry of an https target', { timeout: 120_000 }, () => {
  let dir: string;
  let backend: RunningServer;
  let front: tls.Server;
  let url: string;
  let validTo: number;
  let serve: ServeProcess;
  const sockets = new Set<net.Socket>();

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-serve-tls-'));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '10', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    validTo = Date.parse(new crypto.X509Certificate(fs.readFileSync(cert)).validTo);
    backend = await startFaultHttp('http');
    front = tls.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (socket) => {
      const upstream = net.connect(backend.port, '127.0.0.1');
      sockets.add(socket).add(upstream);
      socket.pipe(upstream).pipe(socket);
      const drop = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    front.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(front.address() as net.AddressInfo).port}/mcp`;
    serve = await startServe([], { NODE_EXTRA_CA_CERTS: cert });
  });

  after(async () => {
    await serve?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => front.close(() => resolve()));
    await backend.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('mcp_health_probe_tls_cert_expiry_timestamp_seconds is the certificate\'s notAfter', async () => {
    const body = await (await fetch(`${serve.base}/probe?target=${encodeURIComponent(url)}`)).text();
    assert.equal(sampleValue(body, 'mcp_health_probe_success'), 1, body);
    assert.equal(sampleValue(body, 'mcp_health_probe_tls_cert_expiry_timestamp_seconds'), Math.floor(validTo / 1000), body);
  });
});
