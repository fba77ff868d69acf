// The certificate of an HTTPS server, for "expires in N days" while it is up.
//
// The session's own TLS socket is out of reach: the SDK transports speak through fetch (undici, or the fetch VS Code
// installs in the extension host), which hands back Responses, never the socket or its peer certificate. So the
// certificate is read by one TLS handshake of its own to the same host and port, once per connection (the caller
// keeps the answer), beside the keepalive path and never on it: nothing is sent after the handshake.
//
// Trust is the session's: Node's default CA store, which includes NODE_EXTRA_CA_CERTS (and in the extension host the
// system certificates VS Code adds to it). A certificate the session would refuse is not reported: its date would
// describe a server the session never talks to.

import * as tls from 'node:tls';
import type { CertificateFacts } from '../core/model';

/** Bound on the one handshake; a server that is up answers one in far less. */
export const CERTIFICATE_TIMEOUT_MS = 5_000;

export interface CertificateProbeOptions {
  readonly timeoutMs?: number;
  /**
   * True when the session reaches this URL through a proxy. The handshake is then skipped: a direct connection takes
   * a route the session does not (often a firewall blocks it, and it would look like a connection attempt around the
   * proxy), and behind a TLS-inspecting proxy the session sees the proxy's certificate, not the one reached directly.
   */
  readonly proxied?: boolean;
  /** Ends the handshake early (the connection closed); the answer is then null. */
  readonly signal?: AbortSignal;
}

/** The certificate `url`'s server presents, or null (not https, proxied, unreachable, untrusted, or no date). */
export function readPeerCertificate(url: URL, options: CertificateProbeOptions = {}): Promise<CertificateFacts | null> {
  if (url.protocol !== 'https:' || options.proxied || options.signal?.aborted) return Promise.resolve(null);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : 443;
  const timeoutMs = options.timeoutMs ?? CERTIFICATE_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    // SNI carries a host name only (RFC 6066): for an IP address none is sent, as fetch does.
    const socket = tls.connect({ host, port, ...(isIpAddress(host) ? {} : { servername: host }) });
    const finish = (facts: CertificateFacts | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      socket.destroy();
      resolve(facts);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    timer.unref();
    const abort = (): void => finish(null);
    options.signal?.addEventListener('abort', abort, { once: true });
    socket.once('secureConnect', () => finish(certificateFacts(socket.getPeerCertificate())));
    socket.once('error', () => finish(null));
    socket.once('close', () => finish(null));
  });
}

/** URL.hostname is normalised: an IPv4 address is dotted digits, an IPv6 one (brackets removed) has colons. */
function isIpAddress(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** The facts of a peer certificate as Node reports it; null when it carries no readable expiry date. */
export function certificateFacts(certificate: tls.PeerCertificate | Record<string, never>): CertificateFacts | null {
  const validTo = typeof certificate.valid_to === 'string' ? Date.parse(certificate.valid_to) : Number.NaN;
  if (!Number.isFinite(validTo)) return null;
  const subject = 'subject' in certificate ? nameOf(certificate.subject) : undefined;
  const issuer = 'issuer' in certificate ? nameOf(certificate.issuer) : undefined;
  return { validTo, ...(subject ? { subject } : {}), ...(issuer ? { issuer } : {}) };
}

function nameOf(name: tls.Certificate | undefined): string | undefined {
  const common = name?.CN;
  return typeof common === 'string' ? common : Array.isArray(common) ? common.join(', ') : undefined;
}
