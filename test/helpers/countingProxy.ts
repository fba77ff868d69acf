// A forward proxy on 127.0.0.1 for the proxy tests: CONNECT tunnels and absolute-form requests, each sent on to
// 127.0.0.1 at the port asked for, so a host that resolves nowhere (a name under .invalid) is reachable only through it.
// It records what passed, with the headers (Proxy-Authorization included).

import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';

export const ELSEWHERE = 'mcp-server.mcp-health-test.invalid';

export class CountingProxy {
  readonly server: Server;
  readonly seen: Array<{ kind: 'connect' | 'forward'; target: string; headers: IncomingHttpHeaders }> = [];
  private readonly sockets = new Set<Socket>();

  constructor() {
    this.server = createServer((request, response) => {
      const target = new URL(request.url ?? '/');
      this.seen.push({ kind: 'forward', target: target.host, headers: request.headers });
      const upstream = httpRequest(
        { host: '127.0.0.1', port: target.port, path: target.pathname + target.search, method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.writeHead(502).end());
      request.pipe(upstream);
    });
    this.server.on('connect', (request, client: Socket, head: Buffer) => {
      const [, port] = (request.url ?? '').split(':');
      this.seen.push({ kind: 'connect', target: request.url ?? '', headers: request.headers });
      const upstream = tcpConnect(Number(port), '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => (socket === client ? upstream : client).destroy());
      }
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  url(credentials = ''): string {
    return `http://${credentials}127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
