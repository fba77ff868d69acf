// `mcp-health serve`: the blackbox-exporter pattern for MCP. GET /probe?target=URL[&module=NAME] probes that one
// server and answers with its probe_* series; /metrics is the exporter's own; /healthz says it runs. Whoever reaches
// the port names the target, so: only http(s) targets, the config's allow-list, a bound on probes at once (over it:
// 503 at once, never a queue), timeouts on every request, and nothing from the query string but target and module.

import * as http from 'node:http';
import { Counter, Gauge, Registry, type RegistryContentType } from 'prom-client';
import type { Clock } from '../../core/clock';
import type { Connector } from '../../core/connection';
import { listenHttp } from '../httpServer';
import type { ListenAddress } from '../listenAddress';
import { hostAllowed, parseTarget } from './allowList';
import { DEFAULT_MODULE_NAME, MAX_PROBE_TIMEOUT_MS, type ServeConfig } from './modules';
import { renderProbe } from './probeMetrics';
import { probeTarget } from './probeTarget';

/** Prometheus sends its scrape timeout; the probe ends this much before it so the answer still arrives. */
const SCRAPE_TIMEOUT_MARGIN_MS = 500;
const MIN_BUDGET_MS = 100;

export interface ServeOptions {
  readonly listen: ListenAddress;
  readonly config: ServeConfig;
  /** One connector per module (its proxy); disposed by close(). */
  readonly connectors: ReadonlyMap<string, Connector>;
  readonly clock: Clock;
  readonly version: string;
}

export interface ProbeServer {
  readonly address: ListenAddress;
  close(): Promise<void>;
}

/** The probe's time: the module's timeout, shortened to what the scraper will wait (X-Prometheus-Scrape-Timeout-Seconds). */
export function probeBudget(moduleTimeoutMs: number, scrapeTimeoutHeader: string | undefined): number {
  const scrape = Number(scrapeTimeoutHeader);
  if (scrapeTimeoutHeader === undefined || !Number.isFinite(scrape) || scrape <= 0) return moduleTimeoutMs;
  return Math.max(MIN_BUDGET_MS, Math.min(moduleTimeoutMs, scrape * 1000 - SCRAPE_TIMEOUT_MARGIN_MS));
}

const COUNTER_NAMES = new WeakMap<Counter, string>();

class OwnMetrics {
  readonly registry = new Registry<RegistryContentType>();
  readonly probes: Counter;
  readonly rejected: Counter;
  readonly inFlight: Gauge;

  constructor(version: string, maxConcurrent: number) {
    const registers = [this.registry];
    this.probes = new Counter({
      name: 'mcp_health_serve_probes_total',
      help: '/probe requests that ran a probe, by result (success, failure).',
      labelNames: ['result', 'module'],
      registers,
    });
    this.rejected = new Counter({
      name: 'mcp_health_serve_rejected_total',
      help: '/probe requests refused before probing, by reason (busy: over max_concurrent; forbidden: not on the allow-list; bad_request: no or bad target, unknown module).',
      labelNames: ['reason'],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'mcp_health_serve_probes_in_flight',
      help: 'Probes running now (their connections not yet closed).',
      registers,
    });
    new Gauge({ name: 'mcp_health_serve_max_concurrent', help: 'The bound on probes at once (max_concurrent).', registers }).set(
      maxConcurrent,
    );
    new Gauge({
      name: 'mcp_health_build_info',
      help: 'mcp-health build information; always 1.',
      labelNames: ['version', 'nodejs_version', 'front_end'],
      registers,
    }).set({ version, nodejs_version: process.version, front_end: 'serve' }, 1);
    COUNTER_NAMES.set(this.probes, 'mcp_health_serve_probes_total').set(this.rejected, 'mcp_health_serve_rejected_total');
    for (const reason of ['busy', 'forbidden', 'bad_request']) this.rejected.inc({ reason }, 0);
  }

  /**
   * One render at a time, each in the format asked for: prom-client drops `_total` from a counter's name in place
   * for OpenMetrics and never puts it back, so the names are restored before every render.
   */
  render(accept: string | undefined): Promise<{ contentType: string; body: string }> {
    const openMetrics = accept?.includes('application/openmetrics-text') ?? false;
    const next = this.rendering.then(async () => {
      for (const counter of [this.probes, this.rejected]) (counter as unknown as { name: string }).name = COUNTER_NAMES.get(counter)!;
      this.registry.setContentType(openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE);
      return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    });
    this.rendering = next.catch(() => undefined);
    return next;
  }

  private rendering: Promise<unknown> = Promise.resolve();
}

export async function serveProbes(options: ServeOptions): Promise<ProbeServer> {
  const { config, clock } = options;
  const own = new OwnMetrics(options.version, config.maxConcurrent);
  let active = 0;
  let closing = false;
  const running = new Set<Promise<void>>();

  const server = http.createServer((request, response) => {
    const send = (status: number, body: string, contentType = 'text/plain; charset=utf-8') => {
      if (response.headersSent) return;
      response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store', ...(closing ? { Connection: 'close' } : {}) });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'method not allowed\n');
    if (closing) return send(503, 'mcp-health is shutting down\n');
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/healthz') return send(200, 'ok\n');
    if (url.pathname === '/metrics') {
      void own.render(request.headers.accept).then(
        ({ contentType, body }) => send(200, body, contentType),
        () => send(500, 'metrics failed\n'),
      );
      return;
    }
    if (url.pathname !== '/probe') return send(404, 'not found: try /probe?target=URL, /metrics or /healthz\n');
    const moduleName = url.searchParams.get('module') || DEFAULT_MODULE_NAME;
    const module = config.modules.get(moduleName);
    const connector = options.connectors.get(moduleName);
    if (!module || !connector) {
      own.rejected.inc({ reason: 'bad_request' });
      // The name is echoed only when it is one a module could have: a query string is not written back verbatim.
      return send(400, `unknown module${/^[A-Za-z0-9_.-]{1,64}$/.test(moduleName) ? ` "${moduleName}"` : ''}\n`);
    }
    const target = parseTarget(url.searchParams.get('target'));
    if (!target.ok) {
      own.rejected.inc({ reason: 'bad_request' });
      return send(400, `${target.reason}\n`);
    }
    // The slot is taken before anything is awaited: two requests can never both see the last free one.
    if (active >= config.maxConcurrent) {
      own.rejected.inc({ reason: 'busy' });
      return send(503, `busy: ${config.maxConcurrent} probes are running (max_concurrent)\n`);
    }
    active += 1;
    own.inFlight.set(active);
    const budget = probeBudget(module.timeoutMs, header(request.headers['x-prometheus-scrape-timeout-seconds']));
    const work = (async () => {
      try {
        if (!hostAllowed(target.url, config.allow)) {
          own.rejected.inc({ reason: 'forbidden' });
          send(403, "the target's host is not on the allow-list of the modules file\n");
          return;
        }
        const probe = probeTarget(target.url, module, budget, { connector, clock });
        const report = await probe.report;
        own.probes.inc({ result: report.success ? 'success' : 'failure', module: moduleName });
        const { contentType, body } = await renderProbe(report, request.headers.accept);
        send(200, body, contentType);
        await probe.closed;
      } catch (error) {
        send(500, `probe failed: ${error instanceof Error ? error.name : 'error'}\n`);
      } finally {
        active -= 1;
        own.inFlight.set(active);
      }
    })();
    running.add(work);
    void work.finally(() => running.delete(work));
  });
  // A client that opens a socket and sends nothing, or never finishes, must not hold a file descriptor for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = MAX_PROBE_TIMEOUT_MS + 10_000;
  server.setTimeout(MAX_PROBE_TIMEOUT_MS + 10_000);
  const { address, close } = await listenHttp(server, options.listen, 'probes');
  return {
    address,
    close: async () => {
      closing = true;
      await close();
      // Probes under way end within their budget; their connections are closed before the connectors go.
      await Promise.all([...running]);
      for (const connector of options.connectors.values()) connector.dispose?.();
    },
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
