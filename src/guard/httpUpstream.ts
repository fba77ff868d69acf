// One HTTP upstream generation = one server session through the SDK's own client transports (Streamable HTTP, or
// legacy HTTP+SSE). Messages are re-serialised here by necessity: each travels as its own HTTP body.

import { SSEClientTransport, StreamableHTTPClientTransport, type FetchLike, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { createHttpTransport } from '../mcp/httpConnect';
import type { Logger } from '../core/logger';
import { httpStatusOf, messageOf } from '../mcp/errors';
import { settlesWithin } from '../mcp/settlesWithin';
import { errorResponse, idKey, isRecord, type JsonRpcId } from './messages';
import type { Upstream, UpstreamEnd, UpstreamEvents } from './upstream';

export interface HttpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly flavour: 'streamable' | 'sse';
  /** The CLI's proxy-aware fetch (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, loopback direct); absent: the global fetch. */
  readonly fetch?: FetchLike;
}

/** Concurrent POSTs in flight before the client's input is paused. */
const MAX_SENDS_IN_FLIGHT = 64;
const TERMINATE_SESSION_MS = 2000;
const STANDBY_STREAM_RETRIES = 5;
/** The JSON-RPC code of the answer a request gets when its response stream ended without its answer. */
export const STREAM_LOST_CODE = -32000;

export class HttpUpstream implements Upstream {
  readonly pid = null;
  private transport: StreamableHTTPClientTransport | SSEClientTransport | null = null;
  private events: UpstreamEvents | null = null;
  private finished = false;
  private sends = 0;
  private blocked = false;
  private readonly initializeIds = new Set<string | number>();
  /** Requests sent and not yet answered, by id key: their SSE response stream may end before the answer comes. */
  private readonly awaiting = new Map<string, JsonRpcId>();

  constructor(
    private readonly target: HttpTarget,
    private readonly logger: Logger,
  ) {}

  async start(events: UpstreamEvents): Promise<void> {
    this.events = events;
    const url = new URL(this.target.url);
    // The client's own standby stream: a dropped one is resumed a few times, never in an endless loop.
    const transport = createHttpTransport(url, this.target.headers, this.target.flavour, {
      standbyRetries: STANDBY_STREAM_RETRIES,
      fetch: this.target.fetch,
    });
    this.transport = transport;
    transport.onmessage = (message) => this.receive(message);
    transport.onerror = (error) => {
      const status = httpStatusOf(error);
      if (status === 401 || status === 403) this.finish(authEnd(status, this.target.url));
      else this.logger.debug(`HTTP upstream: ${messageOf(error)}`);
    };
    transport.onclose = () =>
      this.finish({ message: `upstream ${this.target.url} closed the connection`, exitCode: null, signal: null, stderrTail: '' });
    try {
      await transport.start();
    } catch (error) {
      const status = httpStatusOf(error);
      if (status === 401 || status === 403) {
        this.finish(authEnd(status, this.target.url));
        return;
      }
      throw new Error(`upstream ${this.target.url} cannot be reached: ${messageOf(error)}`);
    }
  }

  private receive(message: JSONRPCMessage): void {
    const record = message as Record<string, unknown>;
    const id = record.id;
    if ((typeof id === 'string' || typeof id === 'number') && !('method' in record)) this.awaiting.delete(idKey(id));
    if ((typeof id === 'string' || typeof id === 'number') && this.initializeIds.delete(id) && isRecord(record.result)) {
      // Later requests must carry the negotiated version header, which the SDK client would normally set itself.
      const version = record.result.protocolVersion;
      if (typeof version === 'string' && this.transport instanceof StreamableHTTPClientTransport)
        this.transport.setProtocolVersion(version);
    }
    this.events?.line(Buffer.from(`${JSON.stringify(message)}\n`, 'utf8'));
  }

  write(raw: Buffer): boolean {
    const transport = this.transport;
    if (!transport || this.finished) return true;
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(raw.toString('utf8')) as JSONRPCMessage;
    } catch {
      this.logger.warn('dropped a client line that is not JSON: an HTTP upstream takes JSON-RPC messages only');
      return true;
    }
    const record = message as Record<string, unknown>;
    const requestId =
      typeof record.method === 'string' && (typeof record.id === 'string' || typeof record.id === 'number') ? record.id : null;
    // Only Streamable HTTP reports the end of a request's stream; legacy SSE answers on its one stream.
    if (requestId !== null && transport instanceof StreamableHTTPClientTransport) this.awaiting.set(idKey(requestId), requestId);
    if (record.method === 'initialize' && requestId !== null) this.initializeIds.add(requestId);
    // A request the client cancelled may never be answered: its stream ending is no loss to report.
    if (record.method === 'notifications/cancelled' && isRecord(record.params)) {
      const cancelled = record.params.requestId;
      if (typeof cancelled === 'string' || typeof cancelled === 'number') this.awaiting.delete(idKey(cancelled));
    }
    const hadSession = transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined;
    this.sends++;
    // The SDK resumes a dropped response stream (Last-Event-ID) when the server gave its events ids; when it cannot
    // (no ids, or the retries ran out) the stream just ends, and without this the request would wait forever.
    const onRequestStreamEnd = requestId === null ? undefined : () => this.streamEnded(requestId);
    const sending =
      transport instanceof StreamableHTTPClientTransport ? transport.send(message, { onRequestStreamEnd }) : transport.send(message);
    sending.then(
      () => this.sent(),
      (error: unknown) => {
        this.sent();
        this.sendFailed(error, hadSession, raw);
      },
    );
    if (this.sends >= MAX_SENDS_IN_FLIGHT) this.blocked = true;
    return !this.blocked;
  }

  private streamEnded(id: JsonRpcId): void {
    if (this.finished || !this.awaiting.delete(idKey(id))) return;
    const reason = `upstream ${this.target.url}: the response stream of this request ended before its answer and could not be resumed`;
    this.logger.warn(`${reason} (request ${JSON.stringify(id)})`);
    this.events?.line(errorResponse(id, STREAM_LOST_CODE, reason));
  }

  private sent(): void {
    this.sends--;
    if (this.blocked && this.sends < MAX_SENDS_IN_FLIGHT / 2) {
      this.blocked = false;
      this.events?.drain();
    }
  }

  private sendFailed(error: unknown, hadSession: boolean, raw: Buffer): void {
    if (this.finished) return;
    const status = httpStatusOf(error);
    if (status === 401 || status === 403) return this.finish(authEnd(status, this.target.url));
    const sessionLost = hadSession && (status === 404 || (status === 400 && /session/i.test(messageOf(error))));
    if (sessionLost) {
      // The server never processed this message (it did not know the session): it is sent again on the next one.
      return this.finish({
        message: `upstream session expired (HTTP ${status})`,
        exitCode: null,
        signal: null,
        stderrTail: '',
        unsent: [raw],
      });
    }
    const detail = status !== undefined ? `HTTP ${status}` : messageOf(error);
    this.finish({ message: `upstream ${this.target.url} failed: ${detail}`, exitCode: null, signal: null, stderrTail: '' });
  }

  private finish(end: UpstreamEnd): void {
    if (this.finished) return;
    this.finished = true;
    this.events?.ended(end);
  }

  pauseReading(): void {
    // HTTP answers arrive on the SDK's streams; the client's backpressure is absorbed by the bounded sends above.
  }

  resumeReading(): void {}

  async close(): Promise<void> {
    this.finished = true;
    const transport = this.transport;
    if (!transport) return;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      // Closing alone leaves the server holding the session; the DELETE ends it, within a short bound.
      await settlesWithin(
        transport.terminateSession().catch(() => undefined),
        TERMINATE_SESSION_MS,
      );
    }
    await transport.close().catch(() => undefined);
  }
}

function authEnd(status: number, url: string): UpstreamEnd {
  const message =
    status === 401
      ? `upstream ${url} answered HTTP 401: it demands authorization. The guard does not do OAuth (that stays with the client); connect the client to this server directly, or pass a static token with --header`
      : `upstream ${url} answered HTTP 403: the credentials were refused`;
  return { message, exitCode: null, signal: null, stderrTail: '', fatal: true };
}
