// One SDK client bound to one transport: what a Connection drives, and what an HTTP connection swaps when the
// server forgot its session.

import {
  Client,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type ConnectOptions as SdkConnectOptions,
  type Transport,
} from '@modelcontextprotocol/client';
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
