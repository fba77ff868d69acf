// What every transport checks before a message reaches the connection: McpConnection reads `error.code` and
// `error.message` of any reply, so a reply that lacks them must stop here, whichever transport carried it.

import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/** The shape the monitor and the SDK client rely on; the SDK validates methods' params itself. */
export function isJsonRpcMessage(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0') return false;
  const message = value as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  if ('method' in message) return typeof message.method === 'string';
  const hasId = typeof message.id === 'number' || typeof message.id === 'string';
  if ('result' in message) return hasId;
  // An error about a request the server could not read carries a null id.
  if (!hasId && message.id !== null) return false;
  const error = message.error as { code?: unknown; message?: unknown } | null | undefined;
  return typeof error === 'object' && error !== null && typeof error.code === 'number' && typeof error.message === 'string';
}
