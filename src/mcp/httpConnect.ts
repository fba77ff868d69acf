// Streamable HTTP (with legacy HTTP+SSE as a fallback for endpoints that answer the POST the legacy way) and
// legacy SSE. Each session ends with a DELETE at close; a server that forgot the session gets a new one.

import { SSEClientTransport, SseError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ConnectError, type CloseInfo, type Connection, type ConnectOptions } from '../core/connection';
import type { Era, ServerConfig } from '../core/model';
import { ConnectDeadline } from './connectDeadline';
import { ChallengeRecorder, httpFailure } from './failureFacts';
import type { ConnectorSettings } from './connectorSettings';
import { httpStatusOf, isModernRefusal, messageOf } from './errors';
import { HttpProbeSender } from './httpProbe';
import { McpConnection, type SessionDriver } from './mcpConnection';
import { settlesWithin } from './settlesWithin';
import { createClient, sdkConnectOptions, type Session } from './session';

type HttpFlavour = 'streamable' | 'sse';

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

export async function connectHttp(server: ServerConfig, options: ConnectOptions, settings: ConnectorSettings): Promise<Connection> {
  const url = serverUrl(server);
  const deadline = new ConnectDeadline(options.timeoutMs, options.signal);
  const challenge = new ChallengeRecorder();
  try {
    const hint = options.eraHint ?? null;
    if (server.transport === 'sse') {
      try {
        return connection(server, url, 'sse', await open(server, url, 'sse', 'handshake', deadline, settings, challenge), settings);
      } catch (error) {
        throw httpFailure(error, url.href, challenge);
      }
    }
    try {
      return connection(server, url, 'streamable', await open(server, url, 'streamable', hint, deadline, settings, challenge), settings);
    } catch (error) {
      if (!answeredTheLegacyWay(error) || deadline.remainingMs() <= 0) throw httpFailure(error, url.href, challenge);
      settings.logger.debug(`${server.name}: Streamable HTTP refused (HTTP ${httpStatusOf(error)}); trying legacy HTTP+SSE`);
      try {
        return connection(server, url, 'sse', await open(server, url, 'sse', 'handshake', deadline, settings), settings);
      } catch (sseError) {
        const first = httpFailure(error, url.href, challenge);
        throw new ConnectError(first.kind, `${first.message} (legacy SSE fallback failed too: ${messageOf(sseError)})`, first.details);
      }
    }
  } finally {
    deadline.dispose();
  }
}

function serverUrl(server: ServerConfig): URL {
  if (!server.url) throw new ConnectError('config', `Server "${server.name}" has no url`);
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    throw new ConnectError('config', `Server "${server.name}" has an invalid url: ${server.url}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConnectError('config', `Server "${server.name}" url must be http(s): ${server.url}`);
  }
  return url;
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
  challenge?: ChallengeRecorder,
): Promise<Session> {
  const requestInit: RequestInit = { headers: { ...server.headers } };
  const fetchOption = challenge ? { fetch: challenge.fetch } : {};
  const transport =
    flavour === 'streamable'
      ? new StreamableHTTPClientTransport(url, { requestInit, reconnectionOptions: STANDBY_STREAM_RECONNECTION, ...fetchOption })
      : new SSEClientTransport(url, { requestInit, ...fetchOption });
  const budget = deadline.remainingMs();
  // On HTTP silence is an outage, not an era verdict: the probe may use the whole budget.
  const client = createClient(settings.clientInfo, budget);
  try {
    await deadline.race(client.connect(transport, sdkConnectOptions(hint, budget, deadline.signal)), () => closeQuietly(transport));
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
): Connection {
  // Legacy SSE answers on its stream, not on the POST: only Streamable HTTP probes go out directly.
  const direct = flavour === 'streamable' ? new HttpProbeSender(settings.probeAgents, url, server.headers) : null;
  const driver: SessionDriver = {
    label: server.name,
    pid: null,
    describeEnd(): CloseInfo {
      return { kind: 'unreachable', message: `The ${flavour === 'sse' ? 'SSE' : 'HTTP'} connection to ${url.href} closed` };
    },
    isFatalError(error) {
      // The legacy SSE stream is the only way answers come back: once it fails, the connection is gone.
      if (flavour !== 'sse' || !(error instanceof SseError)) return null;
      const status = httpStatusOf(error);
      if (status === 401 || status === 403) return { kind: 'auth', message: `${url.href} answered HTTP ${status}` };
      return { kind: 'unreachable', message: `The SSE stream from ${url.href} was lost: ${messageOf(error)}` };
    },
    ...(direct && { sendProbe: (current, request) => direct.send(current, request, () => current.transport.send(request)) }),
    async shutdown(ending) {
      direct?.close();
      await terminateSession(ending, settings.terminateSessionMs);
      await ending.client.close().catch(() => undefined);
    },
    hasServerSession(current) {
      // Legacy SSE keeps its session id in the POST endpoint rather than on the transport.
      return flavour === 'sse' || current.transport.sessionId !== undefined;
    },
    async reopen(era, timeoutMs) {
      const deadline = new ConnectDeadline(Math.max(timeoutMs, 1), undefined);
      try {
        return await open(server, url, flavour, flavour === 'sse' ? 'handshake' : era, deadline, settings);
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
  await settlesWithin(transport.terminateSession().catch(() => undefined), timeoutMs);
}

async function closeQuietly(transport: { close(): Promise<void> }): Promise<void> {
  await transport.close().catch(() => undefined);
}
