// Streamable HTTP (with legacy HTTP+SSE as a fallback for endpoints that answer the POST the legacy way) and
// legacy SSE. Each session ends with a DELETE at close; a server that forgot the session gets a new one.

import {
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { ConnectError, type Connection, type ConnectOptions } from '../core/connection';
import type { Era, ServerConfig, ServerError } from '../core/model';
import { ConnectDeadline } from './connectDeadline';
import { httpFailure, proxyVariables } from './failureFacts';
import type { ConnectorSettings } from './connectorSettings';
import { httpStatusOf, isModernRefusal, messageOf } from './errors';
import { McpConnection, type SessionDriver } from './mcpConnection';
import { ObservedFetch } from './observedFetch';
import { readPeerCertificate } from './peerCertificate';
import { settlesWithin } from './settlesWithin';
import { connectClient, createClient, sdkConnectOptions, type Session } from './session';

export type HttpFlavour = 'streamable' | 'sse';

/**
 * After a server closes the idle standby GET stream, the SDK would reopen it every second forever; with no retries it
 * stays closed. The monitor does not need it: the server's own pings and notifications are a convenience here.
 */
const STANDBY_STREAM_RECONNECTION = {
  maxRetries: 0,
  initialReconnectionDelay: 1000,
  maxReconnectionDelay: 30_000,
  reconnectionDelayGrowFactor: 1.5,
};

/**
 * The one place the SDK's HTTP client transports are built, for the monitor's connections and the guard's upstreams:
 * always to the configured URL, with the configured headers. `standbyRetries` bounds the standby stream's reopening.
 */
export function createHttpTransport(
  url: URL,
  headers: Readonly<Record<string, string>>,
  flavour: HttpFlavour,
  options: { readonly standbyRetries?: number; readonly fetch?: FetchLike } = {},
): StreamableHTTPClientTransport | SSEClientTransport {
  // No headers, no requestInit: the SDK then builds each request's headers from scratch, as for a client given none,
  // instead of converting an empty record on every request (10-15 microseconds and 0.35 KB of garbage per request, measured).
  const requestInit: RequestInit | undefined = Object.keys(headers).length > 0 ? { headers: { ...headers } } : undefined;
  const maxRetries = options.standbyRetries ?? STANDBY_STREAM_RECONNECTION.maxRetries;
  return flavour === 'streamable'
    ? new StreamableHTTPClientTransport(url, {
        requestInit,
        reconnectionOptions: { ...STANDBY_STREAM_RECONNECTION, maxRetries },
        fetch: options.fetch,
      })
    : new SSEClientTransport(url, { requestInit, fetch: options.fetch });
}

export async function connectHttp(server: ServerConfig, options: ConnectOptions, settings: ConnectorSettings): Promise<Connection> {
  const { url, headers } = serverEndpoint(server);
  server = { ...server, headers };
  const deadline = new ConnectDeadline(options.timeoutMs, options.signal);
  const observed = new ObservedFetch(settings.fetch);
  const legacySse = async (): Promise<Connection> =>
    connection(server, url, 'sse', await open(server, url, 'sse', 'handshake', deadline, settings, observed), settings, observed);
  try {
    const hint = options.eraHint ?? null;
    if (server.transport === 'sse') {
      try {
        return await legacySse();
      } catch (error) {
        throw httpFailure(error, url.href, observed);
      }
    }
    try {
      return connection(
        server,
        url,
        'streamable',
        await openStreamable(server, url, hint, deadline, settings, observed),
        settings,
        observed,
      );
    } catch (error) {
      if (!answeredTheLegacyWay(error) || deadline.remainingMs() <= 0) throw httpFailure(error, url.href, observed);
      settings.logger.debug(`${server.name}: Streamable HTTP refused (HTTP ${httpStatusOf(error)}); trying legacy HTTP+SSE`);
      try {
        return await legacySse();
      } catch (sseError) {
        const first = httpFailure(error, url.href, observed);
        throw new ConnectError(first.kind, `${first.message} (legacy SSE fallback failed too: ${messageOf(sseError)})`, first.details);
      }
    }
  } finally {
    deadline.dispose();
  }
}

/**
 * The URL to connect to and the headers to send. Credentials written in the URL (`http://user:pw@host/mcp`) are sent
 * as Basic auth, as curl does (fetch refuses such a URL), unless an Authorization header is configured; they are
 * taken out of the URL, so no message ever quotes them.
 */
function serverEndpoint(server: ServerConfig): { url: URL; headers: Record<string, string> | undefined } {
  if (!server.url) throw new ConnectError('config', `Server "${server.name}" has no url`);
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    throw new ConnectError('config', `Server "${server.name}" has an invalid url: ${withoutCredentials(server.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConnectError('config', `Server "${server.name}" url must be http(s): ${withoutCredentials(server.url)}`);
  }
  if (!url.username && !url.password) return { url, headers: server.headers };
  const credentials = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
  url.username = '';
  url.password = '';
  const configured = Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  if (configured) return { url, headers: server.headers };
  return { url, headers: { ...server.headers, Authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` } };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL as it may be printed, when it could not even be parsed: whatever sits between `//` and the last `@` goes. */
function withoutCredentials(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** Share of the connect budget the `server/discover` probe gets; the rest is for `initialize` if it must follow. */
const DISCOVER_SHARE = 0.4;
const DISCOVER_MAX_MS = 5000;

/**
 * Negotiates the era, and where the SDK gives up on a handshake-era server, runs the handshake itself: a 5xx to
 * `server/discover` (what servers on common web frameworks answer an unknown method) or no answer at all. Only if
 * `initialize` fails too is the server down.
 */
async function openStreamable(
  server: ServerConfig,
  url: URL,
  hint: Era | null,
  deadline: ConnectDeadline,
  settings: ConnectorSettings,
  observed: ObservedFetch,
): Promise<Session> {
  try {
    return await open(server, url, 'streamable', hint, deadline, settings, observed);
  } catch (error) {
    const why = hint === null ? handshakeEraSign(error) : undefined;
    if (why === undefined || deadline.remainingMs() <= 0) throw error;
    settings.logger.debug(`${server.name}: ${why}; trying the initialize handshake`);
    return await open(server, url, 'streamable', 'handshake', deadline, settings, observed);
  }
}

/** Why a failed `server/discover` probe still points to a handshake-era server (protocol.md), or undefined. */
function handshakeEraSign(error: unknown): string | undefined {
  if (
    error instanceof SdkHttpError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    typeof error.status === 'number' &&
    error.status >= 500
  ) {
    return `server/discover answered HTTP ${error.status}`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout && /negotiation probe/i.test(error.message)) {
    return 'server/discover was not answered';
  }
  return undefined;
}

/**
 * The backwards-compatibility rule of the Streamable HTTP spec: a 404 or 405 to the POST means an HTTP+SSE server.
 * A modern -32022 refusal proves the opposite and never falls back.
 */
function answeredTheLegacyWay(error: unknown): boolean {
  const status = httpStatusOf(error);
  return (status === 404 || status === 405) && !isModernRefusal(error);
}

async function open(
  server: ServerConfig,
  url: URL,
  flavour: HttpFlavour,
  hint: Era | null,
  deadline: ConnectDeadline,
  settings: ConnectorSettings,
  observed: ObservedFetch,
): Promise<Session> {
  const transport = createHttpTransport(url, server.headers ?? {}, flavour, { fetch: observed.fetch });
  const budget = deadline.remainingMs();
  // The probe gets a share of the budget, so a server that never answers it is still tried with initialize in time.
  const client = createClient(settings.clientInfo, Math.min(DISCOVER_MAX_MS, Math.max(200, budget * DISCOVER_SHARE)));
  try {
    await deadline.race(connectClient(client, transport, sdkConnectOptions(hint, budget, deadline.signal), server.name), () =>
      closeQuietly(transport),
    );
  } catch (error) {
    await closeQuietly(transport);
    throw error;
  }
  return { client, transport };
}

function connection(
  server: ServerConfig,
  url: URL,
  flavour: HttpFlavour,
  session: Session,
  settings: ConnectorSettings,
  observed: ObservedFetch,
): Connection {
  const driver: SessionDriver = {
    label: server.name,
    pid: null,
    // Legacy SSE answers on its one stream, not on the POST.
    requestPerProbe: flavour === 'streamable',
    onPostReply: (listener) => observed.onPostReply(listener),
    describeEnd(): ServerError {
      return { kind: 'unreachable', message: `The ${flavour === 'sse' ? 'SSE' : 'HTTP'} connection to ${url.href} closed` };
    },
    isFatalError(error) {
      // The legacy SSE stream is the only way answers come back: once it fails, the connection is gone.
      if (flavour !== 'sse' || !(error instanceof SseError)) return null;
      const status = httpStatusOf(error);
      if (status === 401 || status === 403) return { kind: 'auth', message: `${url.href} answered HTTP ${status}` };
      return { kind: 'unreachable', message: `The SSE stream from ${url.href} was lost: ${messageOf(error)}` };
    },
    async shutdown(ending) {
      await terminateSession(ending, settings.terminateSessionMs);
      await ending.client.close().catch(() => undefined);
    },
    certificate(signal) {
      const proxied = settings.proxied ? settings.proxied(url) : proxyVariables(url) !== undefined;
      return readPeerCertificate(url, { proxied, signal });
    },
    hasServerSession(current) {
      // Legacy SSE keeps its session id in the POST endpoint rather than on the transport.
      return flavour === 'sse' || current.transport.sessionId !== undefined;
    },
    async reopen(era, timeoutMs) {
      const deadline = new ConnectDeadline(Math.max(timeoutMs, 1), undefined);
      try {
        return await open(server, url, flavour, flavour === 'sse' ? 'handshake' : era, deadline, settings, observed);
      } finally {
        deadline.dispose();
      }
    },
  };
  return new McpConnection(session, driver, settings.clientInfo, settings.logger);
}

/** Closing the client alone leaves the server holding the session; the DELETE ends it, within a short bound. */
async function terminateSession(session: Session, timeoutMs: number): Promise<void> {
  const transport = session.transport;
  if (!(transport instanceof StreamableHTTPClientTransport) || transport.sessionId === undefined) return;
  await settlesWithin(
    transport.terminateSession().catch(() => undefined),
    timeoutMs,
  );
}

async function closeQuietly(transport: { close(): Promise<void> }): Promise<void> {
  await transport.close().catch(() => undefined);
}
