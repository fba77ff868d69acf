// `mcp-health serve`'s exporter: one connector per module (its proxy, or the environment's), the /probe server on top.

import { systemClock } from '../../core/clock';
import { silentLogger } from '../../core/logger';
import type { Connector } from '../../core/connection';
import { createNodeConnector } from '../../mcp';
import { proxiedFetch, proxyEnvironment, type ProxyEnvironment } from '../../mcp/httpProxy';
import type { ListenAddress } from '../listenAddress';
import type { ProbeModule, ServeConfig } from './modules';
import { serveProbes, type ProbeServer } from './serveHttp';

export { DEFAULT_SERVE_CONFIG, ModulesError, parseServeConfig, type ServeConfig } from './modules';
export type { ProbeServer } from './serveHttp';

export interface StartServeOptions {
  readonly listen: ListenAddress;
  readonly config: ServeConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly version: string;
}

/** A module's `proxy` replaces HTTPS_PROXY/HTTP_PROXY for its targets; NO_PROXY and loopback still go direct. */
export function moduleProxy(module: ProbeModule, env: NodeJS.ProcessEnv): ProxyEnvironment | null {
  const fromEnv = proxyEnvironment(env);
  if (!module.proxy) return fromEnv;
  return { httpProxy: module.proxy, httpsProxy: module.proxy, ...(fromEnv?.noProxy ? { noProxy: fromEnv.noProxy } : {}) };
}

export function startServe(options: StartServeOptions): Promise<ProbeServer> {
  const connectors = new Map<string, Connector>();
  for (const module of options.config.modules.values()) {
    const proxy = moduleProxy(module, options.env);
    connectors.set(
      module.name,
      createNodeConnector({
        logger: silentLogger,
        clientInfo: { name: 'mcp-health', version: options.version },
        ...(proxy && { http: proxiedFetch(proxy) }),
      }),
    );
  }
  return serveProbes({ listen: options.listen, config: options.config, connectors, clock: systemClock, version: options.version }).catch(
    (error: unknown) => {
      for (const connector of connectors.values()) connector.dispose?.();
      throw error;
    },
  );
}
