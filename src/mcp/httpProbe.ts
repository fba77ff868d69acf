// Keepalive probes on Streamable HTTP go straight through node:http, on keep-alive agents shared by every connection
// of one connector, rather than through the SDK's fetch-based transport. The request is the one the transport would
// send (method, headers, body); the SDK stays in charge of connecting, the standby stream and the closing DELETE.
// Why: per probe, fetch and the transport's layers cost several times a bare node:http exchange, and at hundreds of
// servers that was most of the monitor's CPU (bench/sections/scale.ts). Sharing a small socket pool per origin also
// lets many sessions on one server reuse warm connections instead of opening one each.

import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { PROTOCOL_VERSION_META_KEY, SdkErrorCode, SdkHttpError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { isJsonRpcMessage } from './jsonRpcShape';
import type { Session } from './session';

/**
 * Below the 5 s keep-alive timeout of Node's and most servers: closing an idle socket ourselves avoids sending a
 * probe on a socket the server is closing at that moment.
 */
const FREE_SOCKET_TIMEOUT_MS = 4000;
/** Enough for bursts of probes to many sessions on one origin; more would only open sockets that then sit idle. */
const MAX_SOCKETS_PER_ORIGIN = 16;
/** A 50 MB `tools/list` answer must arrive; a reply without end must not exhaust memory. */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;
/** An error body is only quoted in a message. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The sockets every HTTP probe of one connector shares. */
export class ProbeAgents {
  readonly http = new HttpAgent({ keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS, maxSockets: MAX_SOCKETS_PER_ORIGIN });
  readonly https = new HttpsAgent({ keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS, maxSockets: MAX_SOCKETS_PER_ORIGIN });

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}

export interface ProbeRequest {
  readonly jsonrpc: '2.0';
  readonly id: number;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** Sends the probes of one connection; close() cuts what is still in flight. */
export class HttpProbeSender {
  private readonly inFlight = new Set<ClientRequest>();
  private readonly secure: boolean;
  /** The URL as request options, converted once rather than per probe. */
  private readonly target: RequestOptions;
  private readonly fixedHeaders: Readonly<Record<string, string>>;

  constructor(
    private readonly agents: ProbeAgents,
    url: URL,
    configuredHeaders: Readonly<Record<string, string>> | undefined,
  ) {
    this.secure = url.protocol === 'https:';
    this.target = urlToHttpOptions(url);
    this.fixedHeaders = fixedHeadersFor(configuredHeaders);
  }

  /**
   * POSTs `request` on `session` and hands every message of the reply to the session transport's `onmessage`, as
   * the SDK transport would. Rejects with the SDK's error types for HTTP failures, so both paths read the same.
   * `viaTransport` takes over for what this path does not do (redirects).
   */
  send(session: Session, request: ProbeRequest, viaTransport: () => Promise<void>): Promise<void> {
    const body = JSON.stringify(request);
    const headers: OutgoingHttpHeaders = { ...this.fixedHeaders, 'content-length': Buffer.byteLength(body) };
    const sessionId = session.transport.sessionId;
    if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
    const envelopeVersion = (request.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
    if (typeof envelopeVersion === 'string') {
      headers['mcp-protocol-version'] = envelopeVersion;
      headers['mcp-method'] = request.method;
    } else {
      const version = session.client.getNegotiatedProtocolVersion();
      if (version !== undefined) headers['mcp-protocol-version'] = version;
    }
    return new Promise<void>((resolve, reject) => this.post(session, headers, body, true, viaTransport, resolve, reject));
  }

  close(): void {
    for (const request of this.inFlight) request.destroy();
    this.inFlight.clear();
  }

  private post(
    session: Session,
    headers: OutgoingHttpHeaders,
    body: string,
    mayRetry: boolean,
    viaTransport: () => Promise<void>,
    resolve: () => void,
    reject: (error: unknown) => void,
  ): void {
    const options = { ...this.target, method: 'POST', headers, agent: this.secure ? this.agents.https : this.agents.http };
    const request = this.secure ? httpsRequest(options) : httpRequest(options);
    let answered = false;
    this.inFlight.add(request);
    request.on('close', () => this.inFlight.delete(request));
    request.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed just as we wrote to it: the request never reached the server.
      if (mayRetry && !answered && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
        this.post(session, headers, body, false, viaTransport, resolve, reject);
        return;
      }
      reject(error);
    });
    request.on('response', (response: IncomingMessage) => {
      answered = true;
      // Callbacks rather than awaits: the answer reaches the waiting probe in the tick the body ends.
      readReply(session, response, request, (error, redirect) => {
        if (error !== undefined) reject(error);
        else if (redirect) viaTransport().then(resolve, reject);
        else resolve();
      });
    });
    request.end(body);
  }
}

function fixedHeadersFor(configured: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(configured ?? {})) headers[name.toLowerCase()] = value;
  // As the SDK transport does: keep what the user asked to accept, add what Streamable HTTP answers with.
  const accept = new Set((headers.accept ?? '').split(',').map((type) => type.trim().toLowerCase()).filter(Boolean));
  accept.add('application/json');
  accept.add('text/event-stream');
  headers.accept = [...accept].join(', ');
  headers['content-type'] = 'application/json';
  return headers;
}

type ReplyDone = (error: unknown, redirect?: boolean) => void;

function readReply(session: Session, response: IncomingMessage, request: ClientRequest, done: ReplyDone): void {
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400) {
    response.resume();
    return done(undefined, true);
  }
  if (status < 200 || status >= 300) {
    return readText(response, MAX_ERROR_BODY_BYTES, request, true, (error, text) => {
      if (error !== undefined) return done(error);
      done(new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, { status, statusText: response.statusMessage ?? '', text }));
    });
  }
  if (status === 202) {
    response.resume();
    return done(undefined);
  }
  const mediaType = (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (mediaType === 'application/json') {
    return readText(response, MAX_REPLY_BYTES, request, false, (error, text) => {
      if (error !== undefined) return done(error);
      try {
        deliver(session, parseJson(text));
      } catch (invalid) {
        return done(invalid);
      }
      done(undefined);
    });
  }
  if (mediaType === 'text/event-stream') return readEventStream(session, response, request, done);
  response.resume();
  done(new Error(`Unexpected content type: ${mediaType || 'none'}`));
}

/** The body as text, once; past `limit` bytes it is cut (`truncate`) or the request is abandoned. */
function readText(response: IncomingMessage, limit: number, request: ClientRequest, truncate: boolean, done: (error: unknown, text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = endingOnce(response, (error, text = '') => done(error, text));
  response.on('data', (chunk: Buffer) => {
    if (size >= limit) return;
    size += chunk.length;
    chunks.push(chunk);
    if (size >= limit && !truncate) {
      request.destroy();
      finish(new Error(`The reply is larger than ${limit / 1024 / 1024} MB`));
    }
  });
  response.on('end', () => {
    const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
    finish(undefined, truncate ? text.slice(0, limit) : text);
  });
}

/**
 * `done`, called once, for whatever ends the reply first: the reader's own verdict, a socket error, or the server
 * cutting the reply off. Returns the guarded `done` for the reader.
 */
function endingOnce(response: IncomingMessage, done: (error: unknown, text?: string) => void): (error: unknown, text?: string) => void {
  let finished = false;
  const finish = (error: unknown, text?: string): void => {
    if (finished) return;
    finished = true;
    done(error, text);
  };
  response.on('error', (error) => finish(error));
  response.on('aborted', () => finish(new Error('The reply was cut off')));
  return finish;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SyntaxError(`The reply is not JSON: ${text.slice(0, 120)}`);
  }
}

/** Server-sent events, as Streamable HTTP uses them: `data:` lines of `message` events, each one JSON-RPC message. */
function readEventStream(session: Session, response: IncomingMessage, request: ClientRequest, done: ReplyDone): void {
  const events = new EventStreamParser((data) => deliver(session, parseJson(data)));
  let failed = false;
  const finish = endingOnce(response, (error) => done(error));
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    if (failed) return;
    try {
      events.push(chunk);
    } catch (error) {
      failed = true;
      request.destroy();
      finish(error);
    }
  });
  response.on('end', () => finish(undefined));
}

/**
 * Splits a text/event-stream into events. Only each new chunk is scanned for line ends, and a line split across
 * chunks is kept in pieces: a 50 MB event costs linear time, not a rescan of everything buffered per chunk.
 */
export class EventStreamParser {
  private pieces: string[] = [];
  private pendingChars = 0;
  private data: string[] = [];
  private eventChars = 0;
  private eventType = 'message';

  constructor(
    private readonly onMessage: (data: string) => void,
    private readonly maxEventChars = MAX_REPLY_BYTES,
  ) {}

  push(chunk: string): void {
    let start = 0;
    for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
      let line = chunk.slice(start, end);
      start = end + 1;
      if (this.pieces.length > 0) {
        line = this.pieces.join('') + line;
        this.pieces = [];
        this.pendingChars = 0;
      }
      this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    if (start < chunk.length) {
      this.pieces.push(chunk.slice(start));
      this.pendingChars += chunk.length - start;
      this.checkSize(this.pendingChars);
    }
  }

  private line(line: string): void {
    if (line === '') {
      const data = this.data.join('\n');
      const type = this.eventType;
      this.data = [];
      this.eventChars = 0;
      this.eventType = 'message';
      // An event without data primes resumability (it only carries an id): nothing to deliver.
      if (type === 'message' && data.trim() !== '') this.onMessage(data);
    } else if (line.startsWith('data:')) {
      const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      this.data.push(value);
      this.eventChars += value.length;
      this.checkSize(this.eventChars);
    } else if (line.startsWith('event:')) {
      this.eventType = line.slice(6).trim();
    }
    // `id:`, `retry:` and comments matter only for resuming a stream, which a probe never does.
  }

  private checkSize(chars: number): void {
    if (chars > this.maxEventChars) throw new Error(`An event in the reply is larger than ${Math.round(this.maxEventChars / 1024 / 1024)} MB`);
  }
}

function deliver(session: Session, value: unknown): void {
  const messages = Array.isArray(value) ? value : [value];
  for (const message of messages) {
    if (!isJsonRpcMessage(message)) throw new SyntaxError(`The reply is not a JSON-RPC message: ${JSON.stringify(message).slice(0, 120)}`);
  }
  for (const message of messages as JSONRPCMessage[]) session.transport.onmessage?.(message);
}
