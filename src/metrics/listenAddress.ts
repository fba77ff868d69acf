// `HOST:PORT` for --metrics and mcpHealth.metrics.listen. Pure; a leaf module so the CLI parser can import it cheaply.

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/** Loopback unless the user names another address: an exporter must not open a port to the network by surprise. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** Accepts `HOST:PORT`, `[IPv6]:PORT`, `:PORT` and `PORT`; port 0 asks the system for a free one. */
export function parseListenAddress(text: string): ListenAddress | string {
  const value = text.trim();
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  if (!match) return `expected HOST:PORT (e.g. 127.0.0.1:9464), got "${text}"`;
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  if (!Number.isSafeInteger(port) || port > 65535) return `port must be between 0 and 65535, got "${match[3]}"`;
  if (/\s/.test(host)) return `expected HOST:PORT (e.g. 127.0.0.1:9464), got "${text}"`;
  return { host: host === '' ? DEFAULT_METRICS_HOST : host, port };
}

export function formatListenAddress({ host, port }: ListenAddress): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
