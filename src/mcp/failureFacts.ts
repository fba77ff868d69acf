// The structured facts a failure carries beyond its message, for the cause table in src/core/causes.ts: the system
// or TLS error code underneath, the WWW-Authenticate challenge of a 401, and the proxy variables in force.

import { SdkError } from '@modelcontextprotocol/client';
import { ConnectError } from '../core/connection';
import { causeChain, httpConnectError } from './errors';
import type { ObservedFetch } from './observedFetch';

/** The first error code in the cause chain (AggregateError members included), e.g. ECONNREFUSED or CERT_HAS_EXPIRED. */
export function errorCodeOf(error: unknown): string | undefined {
  for (const link of causeChain(error)) {
    // The SDK's own codes (ERA_NEGOTIATION_FAILED, ...) say what it was doing, not what went wrong underneath.
    if (link instanceof SdkError) continue;
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    if (link instanceof AggregateError) {
      for (const inner of link.errors) {
        const innerCode = errorCodeOf(inner);
        if (innerCode) return innerCode;
      }
    }
  }
  return undefined;
}

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];

/**
 * `HTTPS_PROXY=http://proxy:3128 NO_PROXY=localhost`, with any user:password in a proxy url masked; undefined when no
 * proxy variable is set or when the target is loopback or listed in NO_PROXY (no proxy is in the way then).
 */
export function proxyVariables(target: URL, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'].some((name) => env[name]);
  if (!proxied || isLoopback(target.hostname) || bypassed(target.hostname, env.NO_PROXY ?? env.no_proxy ?? '')) return undefined;
  const set = PROXY_VARIABLES.filter((name) => env[name]).map((name) => `${name}=${String(env[name]).replace(/\/\/[^/@\s]*@/, '//***@')}`);
  return set.join(' ');
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);
}

/** NO_PROXY as curl reads it: `*`, exact hosts, and domain suffixes (with or without a leading dot). */
function bypassed(host: string, noProxy: string): boolean {
  return noProxy
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/:\d+$/, ''))
    .filter(Boolean)
    .some((entry) => entry === '*' || host === entry.replace(/^\./, '') || host.endsWith(entry.startsWith('.') ? entry : `.${entry}`));
}

/** httpConnectError, plus the facts the cause table reads. */
export function httpFailure(error: unknown, url: string, observed?: ObservedFetch): ConnectError {
  const base = httpConnectError(error, url);
  const code = base.details.code ?? errorCodeOf(error);
  const authenticate = base.details.httpStatus === 401 ? observed?.lastChallenge : undefined;
  const proxy = proxyVariables(new URL(url));
  if (!code && !authenticate && !proxy) return base;
  return new ConnectError(base.kind, base.message, {
    ...base.details,
    ...(code ? { code } : {}),
    ...(authenticate ? { authenticate } : {}),
    ...(proxy ? { proxy } : {}),
  });
}
