// The little the guard needs to know about a JSON-RPC line to route it; the line itself is forwarded untouched.

export type JsonRpcId = string | number;

export type Classified =
  | { readonly kind: 'request'; readonly id: JsonRpcId; readonly method: string; readonly params: Record<string, unknown> | undefined }
  | { readonly kind: 'notification'; readonly method: string; readonly params: Record<string, unknown> | undefined }
  | {
      readonly kind: 'response';
      readonly id: JsonRpcId | null;
      readonly result?: unknown;
      readonly error?: { code?: unknown; message?: unknown };
    }
  | { readonly kind: 'other' };

/**
 * Ids the guard gives its own requests begin with this prefix. A client may use any string, this prefix included, so
 * a client's id that begins with it travels upstream with CLIENT_MARK inserted after the prefix and loses it on the
 * answer's way back. The guard's own ids never have the mark there: the two sets cannot meet, and every id the client
 * chooses is answered.
 */
export const GUARD_ID_PREFIX = 'mcp-health-guard:';
const CLIENT_MARK = '~';
const MARKED_PREFIX = `${GUARD_ID_PREFIX}${CLIENT_MARK}`;

export const MODERN_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
export const MODERN_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
export const MODERN_CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';

/** Parses one raw line; a line that is not JSON (or a batch) is 'other' and the caller decides. */
export function classifyLine(raw: Buffer): Classified {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return { kind: 'other' };
  }
  return classify(parsed);
}

export function classify(parsed: unknown): Classified {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'other' };
  const message = parsed as Record<string, unknown>;
  const params = isRecord(message.params) ? message.params : undefined;
  if (typeof message.method === 'string') {
    if (isId(message.id)) return { kind: 'request', id: message.id, method: message.method, params };
    if (message.id === undefined) return { kind: 'notification', method: message.method, params };
    return { kind: 'other' };
  }
  if ('result' in message || 'error' in message) {
    const id = isId(message.id) ? message.id : null;
    const error = isRecord(message.error) ? (message.error as { code?: unknown; message?: unknown }) : undefined;
    return error ? { kind: 'response', id, error } : { kind: 'response', id, result: message.result };
  }
  return { kind: 'other' };
}

/** Map key for an id: 1 and "1" are different ids in JSON-RPC. */
export function idKey(id: JsonRpcId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`;
}

/** An id that begins with the guard's prefix: the guard's own, or a client's one marked on its way upstream. */
export function hasGuardPrefix(id: JsonRpcId | null): id is string {
  return typeof id === 'string' && id.startsWith(GUARD_ID_PREFIX);
}

export function isGuardId(id: JsonRpcId | null): id is string {
  return hasGuardPrefix(id) && !id.startsWith(MARKED_PREFIX);
}

/** The id a client's request travels upstream with (the same id unless it begins with the guard's prefix). */
export function upstreamId(id: JsonRpcId): JsonRpcId {
  return hasGuardPrefix(id) ? `${MARKED_PREFIX}${id.slice(GUARD_ID_PREFIX.length)}` : id;
}

/** The client's own id back from the one upstream saw; null when `id` is not a marked client id. */
export function clientIdOf(id: string): string | null {
  return id.startsWith(MARKED_PREFIX) ? `${GUARD_ID_PREFIX}${id.slice(MARKED_PREFIX.length)}` : null;
}

export function line(message: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');
}

export function errorResponse(id: JsonRpcId, code: number, message: string): Buffer {
  return line({ jsonrpc: '2.0', id, error: { code, message } });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}
