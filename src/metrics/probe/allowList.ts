// Which targets /probe may reach. Whoever can reach the endpoint names the target, so the target is checked twice:
// it must be an http(s) URL (never a command: stdio targets are refused outright), and when the config has an
// allow-list, its host must be on it, by name (`mcp.example.internal`, `*.example.internal`) or by address
// (`10.0.0.0/8`, `::1`). Ranges match targets written as addresses; a host name must be on a name entry. Nothing is
// resolved here: a name checked against ranges could resolve elsewhere a moment later when the probe connects.
// node:net is used for its address parsing and BlockList only; no socket is opened here.

import * as net from 'node:net';

export interface AllowList {
  /** Exact host names, lower case. */
  readonly hosts: ReadonlySet<string>;
  /** `*.example.internal` as `.example.internal`: any name below it, not the name itself. */
  readonly suffixes: readonly string[];
  readonly ranges: net.BlockList;
}

/** Parses the `allow` entries; a string names the first entry that is none of a host name, an address or a range. */
export function parseAllowList(entries: readonly string[]): AllowList | string {
  const hosts = new Set<string>();
  const suffixes: string[] = [];
  const ranges = new net.BlockList();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    if (cidr) {
      const family = net.isIP(cidr[1]!);
      const prefix = Number(cidr[2]);
      if (family === 0 || prefix > (family === 4 ? 32 : 128)) return `"${raw}" is not a CIDR range (e.g. 10.0.0.0/8, fd00::/8)`;
      ranges.addSubnet(cidr[1]!, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } else if (net.isIP(unbracket(entry))) {
      const address = unbracket(entry);
      ranges.addAddress(address, net.isIPv4(address) ? 'ipv4' : 'ipv6');
    } else if (/^\*\.[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(entry)) {
      suffixes.push(entry.slice(1));
    } else if (/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(entry)) {
      hosts.add(entry);
    } else {
      return `"${raw}" is not a host name, an IP address or a CIDR range`;
    }
  }
  return { hosts, suffixes, ranges };
}

/** Why a target may not be probed, or undefined when it may be; the URL is parsed here, once. */
export type TargetVerdict = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

/** Only http and https URLs without credentials in them; nothing a shell or a child process would run. */
export function parseTarget(target: string | null): TargetVerdict {
  if (target === null || target === '')
    return { ok: false, reason: 'missing target parameter (e.g. /probe?target=https://mcp.example.internal/mcp)' };
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, reason: 'the target is not a URL: only http:// and https:// MCP endpoints can be probed (stdio servers cannot)' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      reason: `the target's scheme ${url.protocol} is not allowed: only http:// and https:// MCP endpoints can be probed (stdio servers cannot)`,
    };
  }
  // Credentials belong in the module's headers, read from files or the environment, never in a scrape URL.
  if (url.username || url.password) return { ok: false, reason: "the target carries credentials: put them in a module's headers instead" };
  return { ok: true, url };
}

export function hostAllowed(url: URL, allow: AllowList | null): boolean {
  if (allow === null) return true;
  const host = unbracket(url.hostname.toLowerCase()).replace(/\.$/, '');
  const family = net.isIP(host);
  if (family !== 0) return allow.ranges.check(host, family === 4 ? 'ipv4' : 'ipv6');
  return allow.hosts.has(host) || allow.suffixes.some((suffix) => host.endsWith(suffix));
}

function unbracket(host: string): string {
  return host.replace(/^\[|\]$/g, '');
}
