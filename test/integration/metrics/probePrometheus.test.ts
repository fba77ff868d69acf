// Proof of the multi-target pattern: a real Prometheus (Debian's package) scrapes the bundled `mcp-health serve`
// through the shipped relabel_configs (docs/monitoring/prometheus-probe.yml) from a file_sd list of three real HTTP
// servers on 127.0.0.1: one healthy, one hung, one answering 500. Asserted through Prometheus's own query API.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, startFaultHttp, type RunningServer } from '../../helpers/servers';
import {
  alerts,
  ensurePrometheus,
  promtool,
  query,
  startPrometheus,
  waitFor,
  type RunningPrometheus,
  type Sample,
} from './prometheusHarness';
import { startServe, type ServeProcess } from './serveProcess';

const ROOT = path.resolve(__dirname, '../../..');
const SHIPPED = path.join(ROOT, 'docs/monitoring');
const skip = ensurePrometheus();
if (skip) process.stderr.write(`skipping the Prometheus /probe tests: ${skip}\n`);

/** Generous bounds for conditions to become true on a loaded machine; nothing here measures speed. */
const CONDITION_LIMIT_MS = 90_000;

function byInstance(samples: readonly Sample[]): Record<string, number> {
  return Object.fromEntries(samples.map((sample) => [sample.metric.instance, sample.value]));
}

describe('shipped /probe scrape config', { skip }, () => {
  it('promtool accepts prometheus-probe.yml, its file_sd list and the rules it names', () => {
    const result = promtool(['check', 'config', path.join(SHIPPED, 'prometheus-probe.yml')]);
    assert.equal(result.status, 0, result.output);
  });
});

describe('mcp-health serve scraped by a real Prometheus through relabel_configs and file_sd', { skip, timeout: 240_000 }, () => {
  let dir: string;
  let servers: { healthy: RunningServer; hung: RunningServer; failing: RunningServer };
  let serve: ServeProcess | undefined;
  let prometheus: RunningPrometheus | undefined;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-probe-prom-'));
    servers = {
      healthy: await startFaultHttp('http'),
      // Accepts the connection, never answers, not even initialize.
      hung: await startFaultHttp('http', 'hang-start'),
      failing: await startFaultHttp('http', 'status:500'),
    };
    serve = await startServe([]);
    const exporter = new URL(serve.base).host;
    fs.writeFileSync(
      path.join(dir, 'mcp-targets.yml'),
      `- targets: [${Object.values(servers)
        .map((server) => `'${server.url}'`)
        .join(', ')}]\n`,
    );
    // The shipped rules, with `for:` shortened so the test need not wait two minutes.
    fs.writeFileSync(
      path.join(dir, 'alerts.yml'),
      fs.readFileSync(path.join(SHIPPED, 'alerts.yml'), 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 3s'),
    );
    // The shipped config as it is, but scraping every 2 s (with a 2 s scrape timeout) and pointing at this exporter.
    const config = fs
      .readFileSync(path.join(SHIPPED, 'prometheus-probe.yml'), 'utf8')
      .replace(/scrape_interval: \S+/, 'scrape_interval: 2s')
      .replace(/scrape_timeout: \S+/, 'scrape_timeout: 2s')
      .replace(/evaluation_interval: \S+/, 'evaluation_interval: 1s')
      .replaceAll('127.0.0.1:9465', exporter);
    assert.ok(config.includes(exporter) && config.includes('mcp-targets.yml'));
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
    prometheus = await startPrometheus(dir, path.join(dir, 'prometheus.yml'), await freePort());
  });

  after(async () => {
    await prometheus?.stop();
    const exit = await serve?.stop();
    if (exit) assert.equal(exit.code, 0, `serve exited cleanly; output:\n${serve?.output()}`);
    for (const server of Object.values(servers ?? {})) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('mcp_health_probe_success reads 1 for the healthy server, 0 for the hung one and 0 for the one answering 500', async () => {
    const expected = { [servers.healthy.url]: 1, [servers.hung.url]: 0, [servers.failing.url]: 0 };
    const samples = await waitFor(
      () => query(prometheus!, 'mcp_health_probe_success{job="mcp-probe"}'),
      (read) => read.length === 3 && JSON.stringify(byInstance(read)) === JSON.stringify({ ...byInstance(read), ...expected }),
      CONDITION_LIMIT_MS,
    );
    assert.deepEqual(byInstance(samples), expected, `prometheus log:\n${prometheus!.log()}\nserve output:\n${serve!.output()}`);
    // Every scrape of the exporter itself succeeded: a failed probe is an answer, not a failed scrape.
    const up = byInstance(await query(prometheus!, 'up{job="mcp-probe"}'));
    assert.deepEqual(Object.values(up), [1, 1, 1], JSON.stringify(up));
  });

  it('each failure carries its cause, and the exporter counts its probes by result', async () => {
    const causes = await waitFor(
      () => query(prometheus!, 'mcp_health_probe_failure{job="mcp-probe"}'),
      (read) => read.length === 2,
      CONDITION_LIMIT_MS,
    );
    assert.deepEqual(Object.fromEntries(causes.map((sample) => [sample.metric.instance, sample.metric.cause])), {
      [servers.hung.url]: 'timeout',
      [servers.failing.url]: 'server-error',
    });
    const info = await query(prometheus!, 'mcp_health_probe_info{job="mcp-probe"}');
    assert.equal(info[0]?.metric.instance, servers.healthy.url);
    assert.equal(info[0]?.metric.era, 'handshake');
    const own = await waitFor(
      () => query(prometheus!, 'sum by (result) (mcp_health_serve_probes_total{job="mcp-health-serve"})'),
      (read) => read.length === 2,
      CONDITION_LIMIT_MS,
    );
    assert.deepEqual(own.map((sample) => sample.metric.result).sort(), ['failure', 'success']);
  });

  it('the shipped MCPProbeFailed alert fires for the hung and the failing server, not for the healthy one', async () => {
    const firing = (read: Awaited<ReturnType<typeof alerts>>) =>
      read
        .filter((alert) => alert.labels.alertname === 'MCPProbeFailed' && alert.state === 'firing')
        .map((alert) => alert.labels.instance)
        .sort();
    const read = await waitFor(
      () => alerts(prometheus!),
      (all) => firing(all).length === 2,
      CONDITION_LIMIT_MS,
    );
    assert.deepEqual(firing(read), [servers.failing.url, servers.hung.url].sort());
  });
});
