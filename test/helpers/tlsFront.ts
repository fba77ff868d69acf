// A real HTTPS MCP server on 127.0.0.1: a certificate made with openssl (valid `days` days, for IP 127.0.0.1) and a
// TLS front that passes the bytes on to a real fault server over Streamable HTTP, so the session is a real MCP session
// over HTTPS. Clients trust it through NODE_EXTRA_CA_CERTS=certFile.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { startFaultHttp } from './servers';

export interface TlsFront {
  /** The folder holding key.pem and cert.pem, removed by stop(). */
  readonly dir: string;
  readonly certFile: string;
  readonly port: number;
  readonly url: string;
  /** The plain-HTTP server behind the front. */
  readonly backendPort: number;
  /** TCP connections the front accepted, refused handshakes included. */
  handshakes(): number;
  stop(): Promise<void>;
}

export async function startTlsFront(days: number, prefix = 'mcp-health-tls-'): Promise<TlsFront> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const key = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
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
      certFile,
      '-days',
      String(days),
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const backend = await startFaultHttp('http');
  const sockets = new Set<net.Socket>();
  let handshakes = 0;
  const front = tls.createServer({ key: readFileSync(key), cert: readFileSync(certFile) }, (socket) => {
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
  front.on('connection', () => (handshakes += 1));
  front.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const port = (front.address() as net.AddressInfo).port;
  return {
    dir,
    certFile,
    port,
    url: `https://127.0.0.1:${port}/mcp`,
    backendPort: backend.port,
    handshakes: () => handshakes,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await backend.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
