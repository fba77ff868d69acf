// The CLI's HTTP(S) proxy, read from the environment as curl and other command-line clients read it: HTTPS_PROXY for
// https URLs, HTTP_PROXY for http ones, NO_PROXY for exceptions, lower case first. Loopback is never proxied: a server
// on this machine is reached directly, whatever the environment says.
// The extension needs none of this: VS Code's extension host replaces the global fetch with one that follows its
// `http.proxy` settings, and the SDK transports look the global fetch up on every request.

import type { FetchLike } from '@modelcontextprotocol/client';
import type { HttpFetch } from './connectorSettings';

export interface ProxyEnvironment {
  readonly httpProxy?: string;
  readonly httpsProxy?: string;
  readonly noProxy?: string;
}

/** The proxy settings in `env`, or null when no proxy is set. */
export function proxyEnvironment(env: NodeJS.ProcessEnv): ProxyEnvironment | null {
  const read = (name: string): string | undefined => {
    const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const httpProxy = read('http_proxy');
  const httpsProxy = read('https_proxy');
  if (httpProxy === undefined && httpsProxy === undefined) return null;
  return { httpProxy, httpsProxy, noProxy: read('no_proxy') };
}

/** A proxy URL as it may be printed: its password (and user) replaced. */
export function printableProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.username || url.password) {
      url.username = '***';
      url.password = '';
    }
    return url.href;
  } catch {
    return '(an invalid proxy URL)';
  }
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * A fetch that sends requests through the environment's proxy (undici's EnvHttpProxyAgent, which also applies
 * NO_PROXY), except to loopback. undici is loaded on the first proxied request, so a CLI run without a proxy, or
 * against local servers only, never pays for it.
 */
export function proxiedFetch(proxy: ProxyEnvironment): HttpFetch {
  type Undici = typeof import('undici');
  type Loaded = { readonly send: Undici['fetch']; readonly agent: InstanceType<Undici['EnvHttpProxyAgent']> };
  let loading: Promise<Loaded> | undefined;
  const load = (): Promise<Loaded> =>
    (loading ??= import('undici').then(({ fetch: send, EnvHttpProxyAgent }) => ({
      send,
      agent: new EnvHttpProxyAgent({ httpProxy: proxy.httpProxy, httpsProxy: proxy.httpsProxy, noProxy: proxy.noProxy }),
    })));
  const fetchVia: FetchLike = async (url, init) => {
    const target = typeof url === 'string' ? new URL(url) : url;
    if (isLoopbackHost(target.hostname)) return fetch(url, init);
    const { send, agent } = await load();
    // undici's own fetch with its own agent: Node's built-in fetch may be another undici version than the agent.
    const response = await send(target, { ...(init as Parameters<Undici['fetch']>[1]), dispatcher: agent });
    return response as unknown as Response;
  };
  return {
    fetch: fetchVia,
    dispose() {
      void loading?.then(({ agent }) => agent.close()).catch(() => undefined);
    },
  };
}
