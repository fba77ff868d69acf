// One SDK client bound to one transport: what a Connection drives, and what an HTTP connection swaps when the
// server forgot its session.

import {
  Client,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type ConnectOptions as SdkConnectOptions,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { ConnectError } from '../core/connection';
import type { Era, ServerInfo } from '../core/model';

export interface ClientIdentity {
  readonly name: string;
  readonly version: string;
}

export interface Session {
  readonly client: Client;
  readonly transport: Transport;
}

/** Auto negotiation: our own transports are probed in place, so a stdio server is not spawned a second time for it. */
export function createClient(identity: ClientIdentity, probeTimeoutMs: number): Client {
  return new Client(
    { name: identity.name, version: identity.version },
    { capabilities: {}, versionNegotiation: { mode: 'auto', probe: { timeoutMs: Math.max(1, Math.floor(probeTimeoutMs)) } } },
  );
}

/** A 'handshake' verdict skips the `server/discover` probe; anything else negotiates on the connection itself. */
export function sdkConnectOptions(eraHint: Era | null | undefined, timeoutMs: number, signal: AbortSignal): SdkConnectOptions {
  const timeout = Math.max(1, Math.floor(timeoutMs));
  return eraHint === 'handshake' ? { prior: { kind: 'legacy' }, timeout, signal } : { timeout, signal };
}

/**
 * `client.connect`, except that an answer to `initialize` whose result is not an object ends it at once as a protocol
 * violation: the SDK drops such a message as unknown and would wait out the whole connect timeout.
 */
export async function connectClient(client: Client, transport: Transport, options: SdkConnectOptions, label: string): Promise<void> {
  const guard = new InitializeAnswerGuard(transport, label);
  const connecting = client.connect(transport, options);
  try {
    await Promise.race([connecting, guard.violation]);
  } finally {
    connecting.catch(() => undefined);
    guard.dispose();
  }
}

/** Watches the one `initialize` exchange of a connect; gone (send restored, reader unwrapped) once connect settles. */
class InitializeAnswerGuard {
  readonly violation: Promise<never>;
  private reject: (error: ConnectError) => void = () => undefined;
  private readonly originalSend: Transport['send'];
  private wrappedReader: Transport['onmessage'] | undefined;
  private innerReader: Transport['onmessage'] | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly label: string,
  ) {
    this.violation = new Promise<never>((_, reject) => (this.reject = reject));
    this.violation.catch(() => undefined);
    this.originalSend = transport.send;
    transport.send = (message, options) => {
      // By the time initialize goes out the SDK has installed its reader: watch the answer in front of it.
      if ('method' in message && message.method === 'initialize' && 'id' in message) this.watch(message.id);
      return this.originalSend.call(transport, message, options);
    };
  }

  private watch(id: unknown): void {
    const inner = this.transport.onmessage;
    this.innerReader = inner;
    this.wrappedReader = (message: JSONRPCMessage, extra) => {
      if ('id' in message && message.id === id && 'result' in message && !isPlainObject(message.result)) {
        this.reject(
          new ConnectError(
            'protocol-violation',
            `"${this.label}" answered initialize with a result that is not an object (${describe(message.result)})`,
          ),
        );
        return;
      }
      inner?.(message, extra);
    };
    this.transport.onmessage = this.wrappedReader;
  }

  dispose(): void {
    this.transport.send = this.originalSend;
    if (this.wrappedReader && this.transport.onmessage === this.wrappedReader) this.transport.onmessage = this.innerReader;
  }
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

export function sessionEra(session: Session): Era {
  return session.client.getProtocolEra() === 'modern' ? 'modern' : 'handshake';
}

export function sessionServerInfo(session: Session): ServerInfo | null {
  const info = session.client.getServerVersion();
  if (!info) return null;
  return { name: info.name, version: info.version, ...(info.title ? { title: info.title } : {}) };
}

/** The per-request `_meta` envelope every modern-era request must carry, built once per session. */
export function modernEnvelope(session: Session, identity: ClientIdentity): Record<string, unknown> | undefined {
  const version = session.client.getNegotiatedProtocolVersion();
  if (version === undefined || sessionEra(session) !== 'modern') return undefined;
  return {
    _meta: {
      [PROTOCOL_VERSION_META_KEY]: version,
      [CLIENT_INFO_META_KEY]: { name: identity.name, version: identity.version },
      [CLIENT_CAPABILITIES_META_KEY]: {},
    },
  };
}
