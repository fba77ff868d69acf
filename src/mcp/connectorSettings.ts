// Settings shared by every connect the Node connector makes.

import type { FetchLike } from '@modelcontextprotocol/client';
import type { Logger } from '../core/logger';
import type { ClientIdentity } from './session';

export interface ConnectorSettings {
  readonly logger: Logger;
  readonly clientInfo: ClientIdentity;
  readonly stderrBufferBytes: number;
  /** Bound on one stdout line (one message) of a stdio server. */
  readonly maxLineBytes: number;
  readonly killGraceMs: number;
  readonly stdinCloseGraceMs: number;
  /** Bound on the DELETE that ends an HTTP session at close. */
  readonly terminateSessionMs: number;
  /** The fetch HTTP transports use; undefined: the global one, looked up per request (VS Code patches it for proxies). */
  readonly fetch?: FetchLike;
  /** Whether requests to this URL go through a proxy; default: the proxy variables of the environment (NO_PROXY too). */
  readonly proxied?: (url: URL) => boolean;
}

/** A fetch with resources of its own (a proxy agent's sockets), released when the connector is disposed. */
export interface HttpFetch {
  readonly fetch: FetchLike;
  dispose(): void;
}
