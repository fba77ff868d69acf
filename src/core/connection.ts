// The seam between the pure monitor (src/core) and the MCP I/O (src/mcp). The monitor only sees these interfaces.

import type { ListCapabilities, RawReply } from './inventory/types';
import type {
  CertificateFacts,
  Era,
  ErrorKind,
  FailureFacts,
  ProbeMethod,
  ProbeResult,
  ServerConfig,
  ServerError,
  ServerInfo,
} from './model';

export interface ConnectOptions {
  /** Bound on the whole connect (spawn/handshake/discover), ms. */
  readonly timeoutMs: number;
  /** The era found on an earlier connect, so a stdio server is spawned once per (re)connect. */
  readonly eraHint?: Era | null;
  readonly signal?: AbortSignal;
  /** stdio: each stderr chunk of the child while the connect runs (a first start's download progress). */
  readonly onStderr?: (text: string) => void;
}

export interface Connection {
  readonly era: Era;
  readonly protocolVersion: string | null;
  readonly serverInfo: ServerInfo | null;
  /** stdio child pid, when there is one. */
  readonly pid: number | null;
  /**
   * Sends one probe with its own timeout. Never throws: every outcome is a ProbeResult.
   * `method` defaults to the era's probe (ping on handshake, server/discover on modern); the monitor passes a
   * fallback method (e.g. tools/list) for servers that are known not to answer ping correctly.
   */
  probe(timeoutMs: number, method?: ProbeMethod): Promise<ProbeResult>;
  /** The list requests the server declared (tools, prompts, resources); absent when unknown. */
  readonly listCapabilities?: ListCapabilities;
  /**
   * One raw request outside the probe path, for the once-per-connection listing of tools, prompts and resources.
   * Carries the era's envelope itself; never throws.
   */
  request?(method: string, params: Record<string, unknown> | undefined, timeoutMs: number): Promise<RawReply>;
  /**
   * HTTPS: the server certificate, read at most once per connection (later calls share the first answer); null for
   * other transports or when it could not be read. Never throws; never on the keepalive path.
   */
  certificate?(): Promise<CertificateFacts | null>;
  /** Called on any traffic from the server (responses, notifications, requests): resets the idle timer. */
  onActivity(listener: () => void): void;
  /** Called once when the connection ends without close() being called (child exit, stream loss), with why. */
  onClose(listener: (end: ServerError) => void): void;
  /** Called with each stderr chunk of a stdio child (for the debug log). */
  onStderr(listener: (text: string) => void): void;
  /** Tears down client, transport, child (process group, SIGKILL after a grace period) and HTTP session. */
  close(): Promise<void>;
}

/** A failed connect attempt. */
export class ConnectError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details: FailureFacts = {},
  ) {
    super(message);
    this.name = 'ConnectError';
  }

  /** The same failure as the status shows it. */
  toServerError(): ServerError {
    return withFacts({ kind: this.kind, message: this.message, phase: 'connect' }, this.details);
  }

  /** Whatever a connect attempt threw, as a connect failure: a ConnectError says what it is, anything else is unreachable. */
  static describe(error: unknown): ServerError {
    if (error instanceof ConnectError) return error.toServerError();
    return { kind: 'unreachable', message: error instanceof Error ? error.message : String(error), phase: 'connect' };
  }
}

/**
 * `error` with the facts that are known: a fact left undefined is left out rather than shown as a field without a
 * value, and what `error` says itself (kind, message, phase) wins over anything of the same name in `facts`.
 */
export function withFacts(error: ServerError, facts: FailureFacts): ServerError {
  const known = Object.entries(facts).filter(([key, value]) => value !== undefined && !(key in error));
  return { ...error, ...(Object.fromEntries(known) as FailureFacts) };
}

export interface Connector {
  /** Opens a live connection or throws ConnectError. */
  connect(server: ServerConfig, options: ConnectOptions): Promise<Connection>;
  /** Frees what connections share (pooled sockets); called once every connection is closed. */
  dispose?(): void;
}
