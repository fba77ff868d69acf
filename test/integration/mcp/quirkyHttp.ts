// A handshake-era Streamable HTTP endpoint written on bare node:http, in the test's own process, whose every answer a
// test can script: how real servers built on web frameworks answer (a 500 to `server/discover`, an event stream left
// open after the reply, HTML instead of JSON) without an SDK in between. Binds 127.0.0.1 only; counts every request
// and every open socket so a test can prove nothing is retried or left open.

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface QuirkyRequest {
  readonly id: number | string;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly socket: Socket;
  /** The request as the server sees it: 'close' fires when the client gives it up. */
  readonly request: IncomingMessage;
}

export type Reply = (request: QuirkyRequest, response: ServerResponse) => void;

export const json = (response: ServerResponse, message: unknown, status = 200): void => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(message));
};

export const answer = (request: QuirkyRequest, result: unknown): unknown => ({ jsonrpc: '2.0', id: request.id, result });

/** What an SDK 1.x server answers a request before initialize: 400 "Server not initialized". */
const notInitialized: Reply = (request, response) =>
  json(response, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }, 400);

export class QuirkyHttpServer {
  readonly server: Server;
  /** Every JSON-RPC request received, in order (notifications excluded). */
  readonly requests: QuirkyRequest[] = [];
  readonly deletes: IncomingHttpHeaders[] = [];
  private readonly replies = new Map<string, Reply>();
  private readonly sockets = new Set<Socket>();
  private sessions = 0;

  /** With `tls`, an HTTPS server presenting that key and certificate. */
  constructor(private readonly tls?: { readonly key: string; readonly cert: string }) {
    this.reset();
    const handler = (request: IncomingMessage, response: ServerResponse): void => this.handle(request, response);
    this.server = tls ? createTlsServer({ key: tls.key, cert: tls.cert }, handler) : createServer(handler);
    this.server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  url(path = '/mcp'): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** TCP connections the server holds open right now. */
  openSockets(): number {
    return this.sockets.size;
  }

  received(method: string): QuirkyRequest[] {
    return this.requests.filter((request) => request.method === method);
  }

  /** Scripts the answer to `method` from now on. */
  on(method: string, reply: Reply): void {
    this.replies.set(method, reply);
  }

  reset(): void {
    this.requests.length = 0;
    this.deletes.length = 0;
    this.sessions = 0;
    this.replies.clear();
    this.replies.set('server/discover', notInitialized);
    this.replies.set('initialize', (request, response) => {
      response.setHeader('mcp-session-id', `session-${++this.sessions}`);
      const version = request.params?.protocolVersion;
      json(
        response,
        answer(request, { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'quirky', version: '1' } }),
      );
    });
    this.replies.set('ping', (request, response) => json(response, answer(request, {})));
    this.replies.set('tools/list', (request, response) => json(response, answer(request, { tools: [] })));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    if (request.method === 'DELETE') {
      this.deletes.push(request.headers);
      return void response.writeHead(200).end();
    }
    if (request.method !== 'POST') return void response.writeHead(405, { allow: 'POST, DELETE' }).end();
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const message = JSON.parse(body) as { id?: number | string; method: string; params?: Record<string, unknown> };
      if (message.id === undefined) return void response.writeHead(202).end();
      const received: QuirkyRequest = {
        id: message.id,
        method: message.method,
        params: message.params,
        headers: request.headers,
        socket: request.socket,
        request,
      };
      this.requests.push(received);
      const reply = this.replies.get(message.method);
      if (reply) return reply(received, response);
      json(response, { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
    });
  }
}
