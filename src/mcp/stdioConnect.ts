// stdio: one spawn per connect. An era hint skips negotiation; without one, the era is probed on the child itself,
// and a child that dies on the `server/discover` probe is started again as a handshake-era server.

import { existsSync } from 'node:fs';
import { ConnectError, type Connection, type ConnectOptions } from '../core/connection';
import type { Era, ServerConfig, ServerError } from '../core/model';
import { ChildProcessTransport, type StdioLaunch } from './childProcessTransport';
import { ConnectDeadline } from './connectDeadline';
import type { ConnectorSettings } from './connectorSettings';
import { isProtocolFailure, isTimeout, messageOf } from './errors';
import { McpConnection, type SessionDriver } from './mcpConnection';
import { sandboxedLaunch } from './sandboxLaunch';
import { connectClient, createClient, sdkConnectOptions, type Session } from './session';

/** Share of the connect budget a silent server gets before it is taken for a handshake-era one. */
const DISCOVER_SHARE = 0.4;
const DISCOVER_MAX_MS = 5000;

export async function connectStdio(server: ServerConfig, options: ConnectOptions, settings: ConnectorSettings): Promise<Connection> {
  const launch = await stdioLaunch(server);
  const deadline = new ConnectDeadline(options.timeoutMs, options.signal);
  try {
    const hint = options.eraHint ?? null;
    try {
      return await attempt(server, launch, hint, deadline, settings, options.onStderr);
    } catch (error) {
      if (!(error instanceof DiedOnDiscover)) throw error;
      settings.logger.debug(`${server.name}: exited on the server/discover probe; starting it again as a handshake-era server`);
      try {
        return await attempt(server, launch, 'handshake', deadline, settings, options.onStderr);
      } catch (retryError) {
        throw retryError instanceof DiedOnDiscover ? retryError.connectError : retryError;
      }
    }
  } finally {
    deadline.dispose();
  }
}

async function stdioLaunch(server: ServerConfig): Promise<StdioLaunch> {
  if (!server.command) throw new ConnectError('config', `Server "${server.name}" has no command to start`);
  if (server.cwd !== undefined && server.cwd !== '' && !existsSync(server.cwd)) {
    throw new ConnectError('config', `Working directory of "${server.name}" does not exist: ${server.cwd}`);
  }
  const launch: StdioLaunch = {
    command: server.command,
    args: server.args ?? [],
    env: { ...process.env, ...server.env },
    cwd: server.cwd || undefined,
  };
  // The user chose to sandbox this server: it runs inside that sandbox or not at all (sandboxedLaunch throws).
  return server.sandbox ? sandboxedLaunch(launch, server.sandbox) : launch;
}

async function attempt(
  server: ServerConfig,
  launch: StdioLaunch,
  hint: Era | null,
  deadline: ConnectDeadline,
  settings: ConnectorSettings,
  onStderr: ((text: string) => void) | undefined,
): Promise<Connection> {
  const transport = new ChildProcessTransport(launch, {
    label: server.name,
    logger: settings.logger,
    stderrBufferBytes: settings.stderrBufferBytes,
    maxLineBytes: settings.maxLineBytes,
    killGraceMs: settings.killGraceMs,
    stdinCloseGraceMs: settings.stdinCloseGraceMs,
  });
  // The monitor stops listening once the connect ended; the connection's own listeners take over then.
  if (onStderr) transport.onStderr(onStderr);
  const budget = deadline.remainingMs();
  const client = createClient(settings.clientInfo, Math.min(DISCOVER_MAX_MS, Math.max(200, budget * DISCOVER_SHARE)));
  try {
    await deadline.race(connectClient(client, transport, sdkConnectOptions(hint, budget, deadline.signal), server.name), () =>
      transport.close(),
    );
  } catch (error) {
    const failure = connectFailure(server, transport, error, hint);
    await transport.close();
    throw failure;
  }
  if (transport.end) {
    // The child died in the instant between the handshake's last message and now.
    const failure = connectFailure(server, transport, new Error('closed'), hint);
    await transport.close();
    throw failure instanceof DiedOnDiscover ? failure.connectError : failure;
  }
  const session: Session = { client, transport };
  return new McpConnection(session, stdioDriver(server, transport), settings.clientInfo, settings.logger);
}

class DiedOnDiscover extends Error {
  constructor(readonly connectError: ConnectError) {
    super(connectError.message);
  }
}

function connectFailure(server: ServerConfig, transport: ChildProcessTransport, error: unknown, hint: Era | null): Error {
  const end = transport.end;
  if (end) {
    const { kind, message, ...facts } = end;
    const failure = new ConnectError(kind, `${message} while connecting`, facts);
    return hint === null && end.kind === 'exited' && transport.diedOnDiscover ? new DiedOnDiscover(failure) : failure;
  }
  if (error instanceof ConnectError) {
    return new ConnectError(error.kind, error.message, { ...error.details, stderrTail: transport.stderrTail || undefined });
  }
  const stderrTail = transport.stderrTail || undefined;
  if (isTimeout(error)) return new ConnectError('timeout', `"${server.name}" did not complete the handshake in time`, { stderrTail });
  const kind = isProtocolFailure(error) ? 'protocol-violation' : 'unreachable';
  return new ConnectError(kind, `"${server.name}": ${messageOf(error)}`, { stderrTail });
}

function stdioDriver(server: ServerConfig, transport: ChildProcessTransport): SessionDriver {
  return {
    label: server.name,
    get pid() {
      return transport.pid;
    },
    describeEnd(): ServerError {
      const end = transport.end;
      if (!end) return { kind: 'exited', message: 'The server process closed the connection', stderrTail: transport.stderrTail };
      return end;
    },
    async shutdown(session) {
      await session.client.close().catch(() => undefined);
      await transport.close();
    },
    onStderr(listener) {
      transport.onStderr(listener);
    },
  };
}
