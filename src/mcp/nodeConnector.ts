// The Connector the monitor uses in Node (extension host and CLI): real children, real sockets, the v2 SDK client.

import { ConnectError, type Connection, type ConnectOptions, type Connector } from '../core/connection';
import { logs, silentLogger, type Logger } from '../core/logger';
import type { ServerConfig } from '../core/model';
import { redactText } from '../core/redact';
import type { ConnectorSettings, HttpFetch } from './connectorSettings';
import { connectHttp } from './httpConnect';
import { proxyVariables } from './failureFacts';
import { isLoopbackHost } from './httpProxy';
import { connectStdio } from './stdioConnect';

export interface NodeConnectorOptions {
  readonly logger?: Logger;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** How much of a stdio server's stderr is kept for error reports (the tail), in characters. Default 16 KB. */
  readonly stderrBufferBytes?: number;
  /** Bound on one stdio message (one stdout line); past it the connection ends as a protocol violation. Default 64 MB. */
  readonly maxMessageBytes?: number;
  /** How HTTP requests go out (the CLI's proxy support); default: the global fetch, as VS Code's extension host sets it. */
  readonly http?: HttpFetch;
  /** Whether the editor sends HTTP requests to a URL through a proxy (its own setting), beside the environment's. */
  readonly proxied?: (url: URL) => boolean;
}

const DEFAULT_CLIENT_INFO = { name: 'mcp-health', version: '0.1.0' };
const DEFAULT_STDERR_BUFFER = 16 * 1024;
/** Large enough for a 50 MB tool list, small enough that a newline-less flood cannot exhaust memory. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

export function createNodeConnector(options: NodeConnectorOptions = {}): Connector {
  const settings: ConnectorSettings = {
    logger: options.logger ?? silentLogger,
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    stderrBufferBytes: options.stderrBufferBytes ?? DEFAULT_STDERR_BUFFER,
    maxLineBytes: options.maxMessageBytes ?? MAX_LINE_BYTES,
    killGraceMs: 2000,
    stdinCloseGraceMs: 200,
    terminateSessionMs: 1000,
    ...(options.http && { fetch: options.http.fetch }),
    // Loopback is reached directly whatever is configured (httpProxy.ts); elsewhere either proxy is in the way.
    proxied: (url) => proxyVariables(url) !== undefined || (!isLoopbackHost(url.hostname) && options.proxied?.(url) === true),
  };
  return {
    connect(server: ServerConfig, connectOptions: ConnectOptions): Promise<Connection> {
      const serverSettings = withRedactingLogger(settings, server.secretValues);
      switch (server.transport) {
        case 'stdio':
          return connectStdio(server, connectOptions, serverSettings);
        case 'http':
        case 'sse':
          return connectHttp(server, connectOptions, serverSettings);
        default:
          return Promise.reject(new ConnectError('config', `Unknown transport for "${(server as ServerConfig).name}"`));
      }
    },
    dispose(): void {
      // Each connection owns its transport and closes it; only a proxy's sockets are shared.
      options.http?.dispose();
    },
  };
}

/** What a server prints or answers may quote the secrets it was given (env dumps, echoed headers): mask them first. */
function withRedactingLogger(settings: ConnectorSettings, secretValues: readonly string[] | undefined): ConnectorSettings {
  if (!secretValues?.length || settings.logger === silentLogger) return settings;
  const inner = settings.logger;
  const clean = (text: string) => redactText(text, secretValues);
  const logger: Logger = {
    trace: (message) => inner.trace(clean(message)),
    debug: (message) => inner.debug(clean(message)),
    info: (message) => inner.info(clean(message)),
    warn: (message) => inner.warn(clean(message)),
    error: (message) => inner.error(clean(message)),
    enabled: (level) => logs(inner, level),
  };
  return { ...settings, logger };
}
