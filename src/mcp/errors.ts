// Turns what the SDK, fetch and Node throw into the product's error vocabulary (ConnectError kinds).

import { SdkError, SdkErrorCode, SdkHttpError, SseError } from '@modelcontextprotocol/client';
import { ConnectError } from '../core/connection';
import type { ErrorKind } from '../core/model';

const MAX_CAUSE_DEPTH = 8;
const MAX_DETAIL_CHARS = 300;

/** The error and its `cause` chain, bounded (a cyclic chain must not hang us). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < MAX_CAUSE_DEPTH && !chain.includes(current)) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The HTTP status a failure carried, from the SDK's typed errors or the legacy SSE transport's message text. */
export function httpStatusOf(error: unknown): number | undefined {
  for (const link of causeChain(error)) {
    if (link instanceof SdkHttpError && typeof link.status === 'number') return link.status;
    if (link instanceof Error && link.name === 'UnauthorizedError') return 401;
    if (link instanceof SseError && typeof link.code === 'number' && link.code >= 400) return link.code;
    const match = link instanceof Error ? /\(HTTP (\d{3})\)/.exec(link.message) : null;
    if (match) return Number(match[1]);
  }
  return undefined;
}

/** The response body text an SDK HTTP error kept, if any. */
export function httpBodyOf(error: unknown): string | undefined {
  for (const link of causeChain(error)) {
    if (link instanceof SdkHttpError) {
      const text = (link.data as { text?: unknown } | undefined)?.text;
      if (typeof text === 'string') return text;
    }
    if (link instanceof Error) {
      const match = /\(HTTP \d{3}\): (.*)$/s.exec(link.message);
      if (match) return match[1];
    }
  }
  return undefined;
}

function systemCodes(error: unknown): string[] {
  const codes: string[] = [];
  for (const link of causeChain(error)) {
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    // undici wraps several attempts (IPv4/IPv6) in an AggregateError.
    if (link instanceof AggregateError) for (const inner of link.errors) codes.push(...systemCodes(inner));
  }
  return codes;
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection lost',
  UND_ERR_CLOSED: 'connection lost',
  ECONNABORTED: 'connection aborted',
};

/** TLS verification failures, named as a user would look them up; the OpenSSL code follows in brackets. */
const TLS_CODES: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's TLS certificate chain ends in a self-signed (untrusted) CA",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate is signed by an unknown CA",
  UNABLE_TO_GET_ISSUER_CERT: "the server's TLS certificate is signed by an unknown CA",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's TLS certificate is signed by an unknown CA",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate does not match the host name",
  HOSTNAME_MISMATCH: "the server's TLS certificate does not match the host name",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  CERT_NOT_YET_VALID: "the server's TLS certificate is not yet valid",
  CERT_REVOKED: "the server's TLS certificate was revoked",
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS handshake failed (is the server speaking plain HTTP?)',
  EPROTO: 'TLS handshake failed',
};

/**
 * What went wrong below HTTP (TLS, DNS, TCP), in words, with the system code, e.g.
 * `the server's TLS certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)`; undefined when there is no such cause.
 */
export function networkCause(error: unknown): string | undefined {
  const codes = systemCodes(error);
  const tls = codes.find((code) => code in TLS_CODES);
  if (tls) return `${TLS_CODES[tls]} (${tls})`;
  const unreachable = codes.find((code) => code in UNREACHABLE_CODES);
  if (unreachable) return `${UNREACHABLE_CODES[unreachable]} (${unreachable})`;
  return undefined;
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}

/** The cause in words when there is a known one (`connection refused (ECONNREFUSED)`), else the message and code. */
export function describeFailure(error: unknown): string {
  const named = networkCause(error);
  if (named) return named;
  const code = systemCodes(error).find((candidate) => /^(E[A-Z0-9]+|UND_ERR_[A-Z_]+)$/.test(candidate));
  return code ? `${messageOf(error)} (${code})` : messageOf(error);
}

export function isConnectionClosed(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed;
}

export function isTimeout(error: unknown): boolean {
  return causeChain(error).some(
    (link) =>
      (link instanceof SdkError && link.code === SdkErrorCode.RequestTimeout) ||
      (link instanceof Error && (link.name === 'TimeoutError' || TIMEOUT_CODES.has(String((link as { code?: unknown }).code)))),
  );
}

/** A modern-era refusal (-32022 UnsupportedProtocolVersion): proof the endpoint speaks Streamable HTTP. */
export function isModernRefusal(error: unknown): boolean {
  return causeChain(error).some((link) => (link as { code?: unknown }).code === -32022) || /-32022/.test(httpBodyOf(error) ?? '');
}

/** A JSON-RPC error response in an HTTP error body, when it answers request `id`. */
export function jsonRpcErrorInBody(body: string | undefined, id: number): { code: number; message: string } | undefined {
  if (body === undefined || !body.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(body) as { id?: unknown; error?: { code?: unknown; message?: unknown } };
    if (parsed.id !== id || typeof parsed.error?.code !== 'number') return undefined;
    return { code: parsed.error.code, message: String(parsed.error.message ?? '') };
  } catch {
    return undefined;
  }
}

/** What an HTTP-based connect failure means for the user. */
export function httpConnectError(error: unknown, url: string): ConnectError {
  if (error instanceof ConnectError) return error;
  const status = httpStatusOf(error);
  if (status === 401 || status === 403) {
    return new ConnectError('auth', `${url} answered HTTP ${status}: credentials are required`, { httpStatus: status });
  }
  if (isTimeout(error)) return new ConnectError('timeout', `${url} did not answer in time (${messageOf(error)})`);
  const codes = systemCodes(error);
  if (codes.some((code) => TIMEOUT_CODES.has(code))) return new ConnectError('timeout', `${url} did not answer in time`);
  const cause = networkCause(error);
  if (cause) return new ConnectError('unreachable', `${url}: ${cause}`);
  if (status !== undefined) {
    const kind: ErrorKind = status >= 500 || status === 404 || status === 405 ? 'unreachable' : 'protocol-violation';
    return new ConnectError(kind, `${url} answered HTTP ${status}: ${messageOf(error)}`, { httpStatus: status });
  }
  if (causeChain(error).some((link) => link instanceof Error && link.name === 'ZodError')) {
    // The schema's own report is a JSON dump of union branches: name the fault instead.
    return new ConnectError(
      'protocol-violation',
      `${url}: the server's answer is not a valid JSON-RPC message (for instance a result that is not an object)`,
    );
  }
  return new ConnectError(isProtocolFailure(error) ? 'protocol-violation' : 'unreachable', `${url}: ${messageOf(error)}`);
}

/** A 2xx reply that is not MCP: not JSON, not JSON-RPC, or a media type Streamable HTTP does not use (HTML). */
export function isUnusableReply(error: unknown): boolean {
  return causeChain(error).some(
    (link) =>
      (link instanceof SdkError && link.code === SdkErrorCode.ClientHttpUnexpectedContent) ||
      (link instanceof Error && (link.name === 'SyntaxError' || link.name === 'ZodError')),
  );
}

/** The server answered, but not as the protocol says (bad initialize result, no common version, bad JSON...). */
export function isProtocolFailure(error: unknown): boolean {
  return causeChain(error).some(
    (link) =>
      (link instanceof Error && (link.name === 'ProtocolError' || link.name === 'SyntaxError' || link.name === 'ZodError')) ||
      (link instanceof SdkError &&
        (link.code === SdkErrorCode.InvalidResult ||
          link.code === SdkErrorCode.ClientHttpUnexpectedContent ||
          (link.code === SdkErrorCode.EraNegotiationFailed && !(link.cause instanceof Error)))) ||
      (link instanceof Error && /protocol version is not supported|invalid initialize result/i.test(link.message)),
  );
}
