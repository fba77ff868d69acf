// The scrape endpoint: /metrics, /healthz, 404 for anything else; a clean 503 while shutting down.

import * as http from 'node:http';
import { formatListenAddress, type ListenAddress } from './listenAddress';
import type { Exposition } from './promSink';

/** Bounds how long shutdown waits for a scrape in flight before cutting its connection. */
const CLOSE_GRACE_MS = 2_000;

/**
 * What one peer can hold of this process. Every open socket is a file descriptor the monitor needs for the servers it
 * starts: 400 idle half-sent requests under a low fd limit once kept it from restarting a crashed server. So the
 * number of connections is capped (a scraper needs one or two), and a connection that sends no complete request in
 * time, or idles between requests, is closed.
 */
export interface MetricsServerLimits {
  /** Connections beyond this are closed as soon as they are accepted. */
  readonly maxConnections: number;
  /** A request's headers must be complete this long after its first byte. */
  readonly headersTimeoutMs: number;
  /** The whole request, headers and body. */
  readonly requestTimeoutMs: number;
  /** An open socket with no traffic at all (before its first byte, or after an answer) is closed after this. */
  readonly idleTimeoutMs: number;
  /** How often Node checks the two request timeouts above (its default, 30 s, would stretch them). */
  readonly checkIntervalMs: number;
}

export const defaultMetricsServerLimits: MetricsServerLimits = {
  maxConnections: 32,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  idleTimeoutMs: 15_000,
  checkIntervalMs: 1_000,
};

export class MetricsListenError extends Error {}

export interface MetricsHttpServer {
  /** The address actually bound (the port is the real one when 0 was asked). */
  readonly address: ListenAddress;
  close(): Promise<void>;
}

function listenErrorMessage(error: NodeJS.ErrnoException, what: string): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `${what}: the port is already in use`;
    case 'EADDRNOTAVAIL':
      return `${what}: that address does not belong to this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `${what}: the host name does not resolve`;
    case 'EACCES':
      return `${what}: permission denied (ports below 1024 need privileges)`;
    default:
      return `${what}: ${error.message}`;
  }
}

/**
 * Binds `server` (the /metrics endpoint, or serve's /probe endpoint) and gives it the one way both close: stop
 * accepting, end idle keep-alive sockets at once (a scraper's, between scrapes, would hold close() open), and cut what
 * is still running after CLOSE_GRACE_MS. `serving` names the endpoint in a bind error ("cannot serve metrics on ...").
 */
export function listenHttp(server: http.Server, listen: ListenAddress, serving: string): Promise<MetricsHttpServer> {
  const what = `cannot serve ${serving} on ${formatListenAddress(listen)}`;
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(new MetricsListenError(listenErrorMessage(error, what)));
    server.once('error', onError);
    server.listen(listen.port, listen.host, () => {
      server.off('error', onError);
      const bound = server.address() as { address: string; port: number };
      resolve({
        address: { host: bound.address, port: bound.port },
        close: () =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

export function serveMetrics(
  listen: ListenAddress,
  render: (accept: string | undefined) => Promise<Exposition>,
  limits: MetricsServerLimits = defaultMetricsServerLimits,
): Promise<MetricsHttpServer> {
  let closing = false;
  const options: http.ServerOptions = {
    connectionsCheckingInterval: limits.checkIntervalMs,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
  };
  const server = http.createServer(options, (request, response) => {
    const url = (request.url ?? '/').split('?')[0];
    const send = (status: number, contentType: string, body: string) => {
      response.writeHead(status, { 'Content-Type': contentType, ...(closing ? { Connection: 'close' } : {}) });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return;
    }
    if (closing) {
      send(503, 'text/plain; charset=utf-8', 'mcp-health is shutting down\n');
      return;
    }
    if (url === '/healthz') {
      send(200, 'text/plain; charset=utf-8', 'ok\n');
      return;
    }
    if (url !== '/metrics') {
      send(404, 'text/plain; charset=utf-8', 'not found: try /metrics or /healthz\n');
      return;
    }
    render(request.headers.accept).then(
      ({ contentType, body }) => {
        // The body's parts go out as they are (most are kept from earlier scrapes), in one write of the socket.
        response.writeHead(200, {
          'Content-Type': contentType,
          'Content-Length': body.length,
          ...(closing ? { Connection: 'close' } : {}),
        });
        if (request.method === 'HEAD') {
          response.end();
          return;
        }
        response.cork();
        for (const part of body.parts) response.write(part);
        response.end();
      },
      (error: unknown) =>
        send(500, 'text/plain; charset=utf-8', `metrics failed: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  // A scraper that opens a socket and never sends must not hold shutdown or a file descriptor forever (with no
  // 'timeout' listener, Node destroys a socket idle this long).
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleTimeoutMs;
  const bound = listenHttp(server, listen, 'metrics');
  return bound.then(({ address, close }) => ({
    address,
    close: () => {
      closing = true;
      return close();
    },
  }));
}
