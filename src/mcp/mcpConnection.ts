// A live connection as the monitor sees it: probes sent raw on the session's own SDK transport (so a non-empty pong
// or an error reply is seen as sent, and the verdict is the one a real client would get), every inbound message
// counted as activity, and an unrequested end reported once.

import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/client';
import type { Connection } from '../core/connection';
import type { Logger } from '../core/logger';
import type { ListCapabilities, RawReply } from '../core/inventory/types';
import type { CertificateFacts, Era, ProbeMethod, ProbeResult, ServerError, ServerInfo } from '../core/model';
import { classifyReply, type JsonRpcReply } from '../core/probeReply';
import { describeFailure, httpBodyOf, httpStatusOf, isConnectionClosed, isUnusableReply, jsonRpcErrorInBody, messageOf } from './errors';
import { ProbeRelease, type ReleasableRequest } from './probeRelease';
import { modernEnvelope, sessionEra, sessionServerInfo, type ClientIdentity, type Session } from './session';

/** What differs between stdio, Streamable HTTP and legacy SSE. */
export interface SessionDriver {
  readonly label: string;
  readonly pid: number | null;
  /** The report for a session whose transport closed without close() asking for it. */
  describeEnd(session: Session): ServerError;
  /** A transport error that means the connection is lost (the legacy SSE stream dropping). */
  isFatalError?(error: Error): ServerError | null;
  /** Ends the session politely (HTTP DELETE) and tears down transport and child. Never throws. */
  shutdown(session: Session): Promise<void>;
  /** Opens a fresh session on the same server, for a server that forgot ours (HTTP 404). */
  reopen?(era: Era, timeoutMs: number): Promise<Session>;
  /** Tells, for each POST, whether its reply is an event stream (request-per-probe transports). */
  onPostReply?(listener: (body: unknown, eventStream: boolean) => void): void;
  /** Whether the server holds state for this session that it can forget (modern era and stdio have none). */
  hasServerSession?(session: Session): boolean;
  onStderr?(listener: (text: string) => void): void;
  /** HTTPS: reads the server certificate (one handshake beside the session); McpConnection keeps the first answer. */
  certificate?(signal: AbortSignal): Promise<CertificateFacts | null>;
  /**
   * Each probe is a request of its own (Streamable HTTP's POST): it can be given a signal that cuts its request and
   * reply stream once settled (probeRelease.ts decides when), and a reply stream that ends without the answer fails
   * it at once.
   */
  readonly requestPerProbe?: boolean;
}

interface PendingProbe {
  readonly id: number;
  readonly method: ProbeMethod;
  readonly resolve: (result: ProbeResult | SessionLost) => void;
  readonly timer: NodeJS.Timeout;
  /** The probe's own HTTP request, cut once settled if still open (request-per-probe transports only). */
  readonly request: ReleasableRequest | null;
  startedAt: number;
  /** Set for a raw request (the inventory listing): receives the reply as the server sent it. */
  readonly raw?: (message: JSONRPCMessage) => void;
}

/** A probe that failed because the server no longer knows our session: worth one fresh session. */
interface SessionLost {
  readonly sessionLost: true;
  readonly detail: string;
}

/**
 * Far above the ids the SDK's own counter reaches, below 2^31 for servers that store ids in 32-bit integers.
 */
const PROBE_ID_BASE = 1_500_000_000;

export class McpConnection implements Connection {
  private session: Session;
  private certificateRead: Promise<CertificateFacts | null> | null = null;
  /** Cuts a certificate read still under way when the connection ends: no socket outlives its connection. */
  private readonly certificateAbort = new AbortController();
  private sessionEra: Era;
  private envelope: Record<string, unknown> | undefined;
  private readonly pending = new Map<number, PendingProbe>();
  private nextProbeId = PROBE_ID_BASE;
  private readonly release = new ProbeRelease();
  private readonly activityListeners: Array<() => void> = [];
  private readonly closeListeners: Array<(info: ServerError) => void> = [];
  private ended = false;
  private endInfo: ServerError | null = null;
  private closing: Promise<void> | null = null;

  constructor(
    session: Session,
    private readonly driver: SessionDriver,
    private readonly identity: ClientIdentity,
    private readonly logger: Logger,
  ) {
    this.session = session;
    this.sessionEra = sessionEra(session);
    this.envelope = modernEnvelope(session, identity);
    this.attach(session);
    // Only a probe with a request of its own has a reply kind to note: legacy SSE's POSTs are not scanned at all.
    if (driver.requestPerProbe) driver.onPostReply?.((body, eventStream) => this.notePostReply(body, eventStream));
  }

  get era(): Era {
    return this.sessionEra;
  }

  get protocolVersion(): string | null {
    return this.session.client.getNegotiatedProtocolVersion() ?? null;
  }

  get serverInfo(): ServerInfo | null {
    return sessionServerInfo(this.session);
  }

  get pid(): number | null {
    return this.driver.pid;
  }

  /** Once per connection: the first call starts the read, later ones (a re-listing, a reopened session) share it. */
  certificate(): Promise<CertificateFacts | null> {
    if (this.ended) return Promise.resolve(null);
    this.certificateRead ??= this.driver.certificate
      ? this.driver.certificate(this.certificateAbort.signal).catch(() => null)
      : Promise.resolve(null);
    return this.certificateRead;
  }

  get listCapabilities(): ListCapabilities {
    const declared = this.session.client.getServerCapabilities();
    return { tools: Boolean(declared?.tools), prompts: Boolean(declared?.prompts), resources: Boolean(declared?.resources) };
  }

  /** A request outside the probe path, on the same id space, timeout and reply routing as the probes. */
  request(method: string, params: Record<string, unknown> | undefined, timeoutMs: number): Promise<RawReply> {
    if (this.ended) return Promise.resolve({ ok: false, error: 'the connection is closed' });
    const id = this.nextProbeId++;
    // A modern-era request is refused without the envelope; the cursor goes beside its `_meta`.
    const merged = this.envelope || params ? { ...this.envelope, ...params } : undefined;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.expire(id, timeoutMs), timeoutMs);
      // Released once answered, like a probe: a listing's event stream left open must not hold a socket.
      const request = this.driver.requestPerProbe ? this.release.begin(true) : null;
      const pending: PendingProbe = {
        id,
        method: method as ProbeMethod,
        timer,
        request,
        startedAt: performance.now(),
        resolve: (failed) => resolve({ ok: false, error: isSessionLost(failed) ? failed.detail : (failed.detail ?? failed.outcome) }),
        raw: (message) => {
          if ('error' in message) resolve({ ok: false, error: `error ${message.error.code}: ${message.error.message}` });
          else resolve({ ok: true, result: 'result' in message ? message.result : undefined });
        },
      };
      this.pending.set(id, pending);
      this.send({ jsonrpc: '2.0' as const, id, method, ...(merged ? { params: merged } : {}) }, pending);
    });
  }

  onActivity(listener: () => void): void {
    this.activityListeners.push(listener);
  }

  onClose(listener: (info: ServerError) => void): void {
    this.closeListeners.push(listener);
    // An end that came before anyone listened (right after connect) must still be heard.
    const info = this.endInfo;
    if (info) queueMicrotask(() => listener(info));
  }

  onStderr(listener: (text: string) => void): void {
    this.driver.onStderr?.(listener);
  }

  probe(timeoutMs: number, method?: ProbeMethod): Promise<ProbeResult> {
    const probeMethod = method ?? (this.sessionEra === 'modern' ? 'server/discover' : 'ping');
    // Kept free of async wrappers: this path is benchmarked against a bare JSON-RPC exchange.
    return this.exchange(probeMethod, timeoutMs).then((first) =>
      isSessionLost(first) ? this.retryOnFreshSession(probeMethod, timeoutMs, first) : first,
    );
  }

  private async retryOnFreshSession(method: ProbeMethod, timeoutMs: number, lost: SessionLost): Promise<ProbeResult> {
    if (!this.driver.reopen || this.ended) return { method, outcome: 'closed', detail: lost.detail };
    this.logger.debug(`${this.driver.label}: ${lost.detail}; starting a new session`);
    try {
      await this.replaceSession(await this.driver.reopen(this.sessionEra, timeoutMs));
    } catch (error) {
      return { method, outcome: 'closed', detail: `${lost.detail}; a new session failed: ${messageOf(error)}` };
    }
    const second = await this.exchange(method, timeoutMs);
    return isSessionLost(second) ? { method, outcome: 'closed', detail: second.detail } : second;
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.ended = true;
    this.certificateAbort.abort();
    this.failPending('closed', 'the connection was closed');
    try {
      await this.driver.shutdown(this.session);
    } catch (error) {
      this.logger.debug(`${this.driver.label}: while closing: ${messageOf(error)}`);
    }
  }

  private exchange(method: ProbeMethod, timeoutMs: number): Promise<ProbeResult | SessionLost> {
    if (this.ended) return Promise.resolve({ method, outcome: 'closed', detail: 'the connection is closed' });
    // A second initialize would replace the HTTP session or be refused on stdio: it only ever runs inside connect.
    if (method === 'initialize') return Promise.resolve({ method, outcome: 'failed', detail: 'initialize is only sent while connecting' });
    const id = this.nextProbeId++;
    // Handshake-era requests carry no params; modern ones the per-request envelope.
    const request = { jsonrpc: '2.0' as const, id, method, params: this.envelope };
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.expire(id, timeoutMs), timeoutMs);
      const probe: PendingProbe = {
        id,
        method,
        resolve,
        timer,
        request: this.driver.requestPerProbe ? this.release.begin() : null,
        startedAt: 0,
      };
      this.pending.set(id, probe);
      probe.startedAt = performance.now();
      this.send(request, probe);
    });
  }

  /**
   * The one place a probe or listing goes out. On request-per-probe transports the stream's end without the answer
   * fails it at once, and a signal, when probeRelease gives one, lets the settled request go: a server may keep a
   * POST's event stream open after the reply, and a timed-out probe's request must not stay open.
   */
  private send(message: JSONRPCMessage, probe: PendingProbe): void {
    const request = probe.request;
    if (!request) {
      this.session.transport.send(message).catch((error: unknown) => this.sendFailed(probe, error));
      return;
    }
    const onRequestStreamEnd = (): void => this.streamEnded(probe, request);
    const options = request.controller ? { requestSignal: request.controller.signal, onRequestStreamEnd } : { onRequestStreamEnd };
    this.session.transport.send(message, options).then(
      () => (request.ended ||= request.eventStream === false),
      (error: unknown) => {
        request.ended = true;
        this.sendFailed(probe, error);
      },
    );
  }

  private notePostReply(body: unknown, eventStream: boolean): void {
    if (this.pending.size === 0 || typeof body !== 'string') return;
    const id = ownIdIn(body);
    const request = id === null ? undefined : this.pending.get(id)?.request;
    if (request) request.eventStream = eventStream;
  }

  private attach(session: Session): void {
    const transport = session.transport;
    const sdkOnMessage = transport.onmessage;
    transport.onmessage = <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => {
      if (session !== this.session) return;
      for (const listener of this.activityListeners) listener();
      if ('id' in message && !('method' in message) && isOwnId(message.id)) {
        // Ours (a probe or a listing request): an answer that comes after its timeout or after close is dropped
        // here, since the SDK never sent that id and would report it as an error.
        if (this.pending.size > 0) this.answer(message);
        return;
      }
      sdkOnMessage?.(message, extra);
    };
    session.client.onclose = () => {
      if (session === this.session) this.end(this.driver.describeEnd(session));
    };
    session.client.onerror = (error: Error) => {
      if (session !== this.session) return;
      const fatal = this.driver.isFatalError?.(error) ?? null;
      if (fatal && !this.ended) {
        this.end(fatal);
        void this.driver.shutdown(session);
        return;
      }
      this.logger.debug(`${this.driver.label}: ${messageOf(error)}`);
    };
  }

  private async replaceSession(fresh: Session): Promise<void> {
    const stale = this.session;
    this.session = fresh;
    this.sessionEra = sessionEra(fresh);
    this.envelope = modernEnvelope(fresh, this.identity);
    this.attach(fresh);
    if (this.ended) {
      await this.driver.shutdown(fresh);
      return;
    }
    // The retried probe must not wait for the old session's DELETE.
    void this.driver.shutdown(stale);
  }

  /** Reports an end that close() did not ask for, once. */
  private end(info: ServerError): void {
    if (this.ended) return;
    this.ended = true;
    this.certificateAbort.abort();
    this.endInfo = info;
    this.failPending('closed', info.message);
    for (const listener of this.closeListeners) listener(info);
  }

  private answer(message: JSONRPCMessage): boolean {
    const probe = this.pending.get((message as { id: number }).id);
    if (!probe) return false;
    const answeredAt = performance.now();
    const rttMs = answeredAt - probe.startedAt;
    if (probe.request) probe.request.answeredAt = answeredAt;
    this.settle(probe);
    if (probe.raw) {
      probe.raw(message);
    } else {
      probe.resolve({ method: probe.method, rttMs, requestId: probe.id, ...classifyReply(probe.method, message as JsonRpcReply) });
    }
    return true;
  }

  private expire(id: number, timeoutMs: number): void {
    const probe = this.pending.get(id);
    if (!probe) return;
    this.settle(probe);
    probe.resolve({ method: probe.method, outcome: 'timeout', requestId: id, detail: `no answer within ${timeoutMs} ms` });
  }

  private streamEnded(probe: PendingProbe, request: ReleasableRequest): void {
    request.ended = true;
    if (!this.pending.has(probe.id)) return;
    this.settle(probe);
    const base = { method: probe.method, requestId: probe.id };
    if (this.ended) return probe.resolve({ ...base, outcome: 'closed', detail: 'the connection was closed' });
    probe.resolve({ ...base, outcome: 'failed', detail: 'the server ended its event-stream reply without the answer' });
  }

  private sendFailed(probe: PendingProbe, error: unknown): void {
    if (!this.pending.has(probe.id)) return;
    this.settle(probe);
    const base = { method: probe.method, requestId: probe.id };
    if (this.ended) return probe.resolve({ ...base, outcome: 'closed', detail: messageOf(error) });
    const status = httpStatusOf(error);
    if (status === 401 || status === 403) return probe.resolve({ ...base, outcome: 'auth', detail: `HTTP ${status}` });
    const body = status !== undefined ? httpBodyOf(error) : undefined;
    // A modern server answers an unknown method with HTTP 404 carrying the JSON-RPC error: an answer, not a lost session.
    const rpcError = jsonRpcErrorInBody(body, probe.id);
    if (rpcError) {
      const rttMs = performance.now() - probe.startedAt;
      return probe.resolve({
        ...base,
        outcome: 'error-reply',
        rttMs,
        detail: `HTTP ${status}, error ${rpcError.code}: ${rpcError.message}`,
      });
    }
    if (status !== undefined && isSessionGone(status, body) && this.driver.hasServerSession?.(this.session)) {
      return probe.resolve({ sessionLost: true, detail: `the server no longer knows the session (HTTP ${status})` });
    }
    if (isConnectionClosed(error)) return probe.resolve({ ...base, outcome: 'closed', detail: messageOf(error) });
    // The server answered, but with an HTTP error or something that is not MCP while initialize worked: a violation,
    // under the monitor's storm guard (one reconnect, then non-conformant), like an error pong.
    if (status !== undefined || isUnusableReply(error)) {
      const rttMs = performance.now() - probe.startedAt;
      const detail =
        status !== undefined ? `HTTP ${status} instead of an answer: ${messageOf(error)}` : `not an MCP answer: ${messageOf(error)}`;
      return probe.resolve({ ...base, outcome: 'error-reply', rttMs, detail });
    }
    probe.resolve({ ...base, outcome: 'failed', detail: describeFailure(error) });
  }

  private settle(probe: PendingProbe): void {
    this.pending.delete(probe.id);
    clearTimeout(probe.timer);
    if (probe.request) this.release.settled(probe.request);
  }

  private failPending(outcome: 'closed', detail: string): void {
    for (const probe of this.pending.values()) {
      this.settle(probe);
      probe.resolve({ method: probe.method, outcome, requestId: probe.id, detail });
    }
  }
}

/** The id of one of our requests in its body as the SDK serialised it (`{"jsonrpc":"2.0","id":1500000042,...`). */
function ownIdIn(body: string): number | null {
  const id = Number(/"id":(\d{10,15})\b/.exec(body)?.[1]);
  return id >= PROBE_ID_BASE ? id : null;
}

function isOwnId(id: unknown): boolean {
  return typeof id === 'number' && id >= PROBE_ID_BASE;
}

function isSessionLost(value: ProbeResult | SessionLost): value is SessionLost {
  return (value as SessionLost).sessionLost === true;
}

/** 404 is the specified answer to an unknown session; some servers answer 400 and say why in the body. */
function isSessionGone(status: number, body: string | undefined): boolean {
  return status === 404 || (status === 400 && body !== undefined && /session/i.test(body));
}
