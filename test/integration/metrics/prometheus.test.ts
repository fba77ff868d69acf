// Proof of the Prometheus front end: the bundled `mcp-health watch --metrics` on real servers (one up, one hung, one
// that exits), scraped every second by a real Prometheus from Debian's package, asserted through Prometheus's own API.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { everythingStdio, faultStdio, freePort } from '../../helpers/servers';
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
import { startWatch, type WatchProcess } from './watchProcess';

const ROOT = path.resolve(__dirname, '../../..');
const SHIPPED = path.join(ROOT, 'docs/monitoring');
const skip = ensurePrometheus();
if (skip) process.stderr.write(`skipping the Prometheus tests: ${skip}\n`);

/** Generous bounds for conditions to become true on a loaded machine; nothing here measures speed. */
const CONDITION_LIMIT_MS = 90_000;

const leValue = (le: string) => (le === '+Inf' ? Infinity : Number(le));

function byServer(samples: readonly Sample[]): Record<string, number> {
  return Object.fromEntries(samples.map((sample) => [sample.metric.server, sample.value]));
}

describe('shipped monitoring files', { skip }, () => {
  it('promtool accepts the alerting rules', () => {
    const result = promtool(['check', 'rules', path.join(SHIPPED, 'alerts.yml')]);
    assert.equal(result.status, 0, result.output);
  });

  it('promtool accepts the scrape config (and the rule file it names)', () => {
    const result = promtool(['check', 'config', path.join(SHIPPED, 'prometheus.yml')]);
    assert.equal(result.status, 0, result.output);
  });

  it('the Grafana dashboard is valid JSON and every query uses a series the exporter serves', () => {
    const dashboard = JSON.parse(fs.readFileSync(path.join(SHIPPED, 'grafana-dashboard.json'), 'utf8')) as {
      panels: Array<{ targets?: Array<{ expr: string }> }>;
    };
    const exprs = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
    assert.ok(exprs.length >= 4, 'the dashboard has queries');
    for (const expr of exprs) assert.match(expr, /mcp_health_|mcp_client_operation_duration_seconds/, expr);
  });
});

describe('mcp-health watch --metrics scraped by a real Prometheus', { skip }, () => {
  let dir: string;
  let watch: WatchProcess | undefined;
  let prometheus: RunningPrometheus | undefined;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-prom-'));
    const up = everythingStdio();
    // Never answers, not even initialize: every connect attempt times out.
    const hung = faultStdio('hang-start');
    const exits = faultStdio('exit:3');
    const config = path.join(dir, 'mcp.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        servers: {
          up: { type: 'stdio', command: up.command, args: up.args },
          hung: { type: 'stdio', command: hung.command, args: hung.args },
          exits: { type: 'stdio', command: exits.command, args: exits.args },
        },
      }),
    );
    watch = await startWatch([
      '--config',
      config,
      '--metrics',
      `127.0.0.1:${await freePort()}`,
      '--interval-ms',
      '1000',
      '--timeout-ms',
      '1000',
      '--connect-timeout-ms',
      '1500',
      '--startup-timeout-ms',
      '20000',
      '--json',
    ]);
    // The shipped rules, with `for:` shortened so the test need not wait two minutes.
    const rules = fs.readFileSync(path.join(SHIPPED, 'alerts.yml'), 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 3s');
    fs.writeFileSync(path.join(dir, 'alerts.yml'), rules);
    const target = new URL(watch.metricsUrl).host;
    fs.writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        '  - alerts.yml',
        'scrape_configs:',
        '  - job_name: mcp-health',
        '    static_configs:',
        `      - targets: ['${target}']`,
        '',
      ].join('\n'),
    );
    prometheus = await startPrometheus(dir, path.join(dir, 'prometheus.yml'), await freePort());
  });

  after(async () => {
    await prometheus?.stop();
    const exit = await watch?.stop();
    if (exit)
      assert.ok(exit.code === 0 || exit.code === 1, `watch exited cleanly (got ${JSON.stringify(exit)}); stderr:\n${watch?.stderr()}`);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('Prometheus scrapes the exporter successfully', async () => {
    const up = await waitFor(
      () => query(prometheus!, 'up{job="mcp-health"}'),
      (samples) => samples[0]?.value === 1,
      CONDITION_LIMIT_MS,
    );
    assert.equal(up[0]?.value, 1, `scrape target not up; prometheus log:\n${prometheus!.log()}`);
  });

  it('mcp_health_up reads 1 for the server that answers, 0 for the hung one and 0 for the one that exits', async () => {
    const expected = { up: 1, hung: 0, exits: 0 };
    const samples = await waitFor(
      () => query(prometheus!, 'mcp_health_up'),
      (read) => JSON.stringify(byServer(read)) === JSON.stringify({ ...byServer(read), ...expected }) && read.length === 3,
      CONDITION_LIMIT_MS,
    );
    assert.deepEqual(byServer(samples), expected, `watch stderr:\n${watch!.stderr()}`);
    const state = byServer(await query(prometheus!, 'mcp_health_state == 1'));
    assert.equal(state.up, 1);
    // Between its restarts the exiting server is starting, down or connecting again, until it is given up on; never up.
    const states = await query(prometheus!, 'mcp_health_state{server="exits"} == 1');
    assert.equal(states.length, 1, 'one-hot');
    assert.ok(['starting', 'down', 'connecting', 'gave-up'].includes(states[0]!.metric.state!), JSON.stringify(states));
    const healthy = byServer(await query(prometheus!, 'mcp_health_healthy'));
    assert.deepEqual(healthy, expected, 'healthy only where up, not flapping, not slow');
  });

  it('the probe duration histogram of the answering server grows, with the semantic-convention labels', async () => {
    const countOf = async () =>
      (await query(prometheus!, 'sum(mcp_client_operation_duration_seconds_count{server="up",mcp_method_name="ping"})'))[0]?.value ?? 0;
    const first = await waitFor(countOf, (count) => count > 0, CONDITION_LIMIT_MS);
    assert.ok(first > 0, 'probes were recorded');
    const later = await waitFor(countOf, (count) => count >= first + 3, CONDITION_LIMIT_MS);
    assert.ok(later >= first + 3, `count grew from ${first} to ${later}`);
    const buckets = await query(prometheus!, 'mcp_client_operation_duration_seconds_bucket{server="up",mcp_method_name="ping"}');
    assert.deepEqual(
      buckets.map((sample) => sample.metric.le!).sort((a, b) => leValue(a) - leValue(b)),
      ['0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1', '2', '5', '10', '30', '60', '120', '300', '+Inf'],
    );
    const ok = await query(prometheus!, 'mcp_health_probes_total{server="up",result="ok"}');
    assert.ok((ok[0]?.value ?? 0) > 0);
    const build = await query(prometheus!, 'mcp_health_build_info');
    assert.equal(build[0]?.metric.front_end, 'cli');
  });

  it('the exiting server is counted as reconnecting, and its last error never leaks into labels', async () => {
    const reconnects = await waitFor(
      () => query(prometheus!, 'mcp_health_reconnects_total{server="exits"}'),
      (read) => (read[0]?.value ?? 0) >= 1,
      CONDITION_LIMIT_MS,
    );
    assert.ok((reconnects[0]?.value ?? 0) >= 1);
    const labelNames = new Set((await query(prometheus!, '{__name__=~"mcp_.*"}')).flatMap((sample) => Object.keys(sample.metric)));
    const allowed = new Set([
      '__name__',
      'job',
      'instance',
      'server',
      'transport',
      'source_file',
      'era',
      'state',
      'result',
      'mcp_method_name',
      'error_type',
      'le',
      'version',
      'nodejs_version',
      'front_end',
    ]);
    assert.deepEqual(
      [...labelNames].filter((name) => !allowed.has(name)),
      [],
    );
  });

  it('the shipped MCPServerUnhealthy alert fires for the hung server, MCPServerGaveUp for the crash loop', async () => {
    const firing = await waitFor(
      () => alerts(prometheus!),
      (read) =>
        read.some(
          (alert) => alert.labels.alertname === 'MCPServerUnhealthy' && alert.labels.server === 'hung' && alert.state === 'firing',
        ) &&
        read.some((alert) => alert.labels.alertname === 'MCPServerGaveUp' && alert.labels.server === 'exits' && alert.state === 'firing'),
      CONDITION_LIMIT_MS,
    );
    const hung = firing.find((alert) => alert.labels.alertname === 'MCPServerUnhealthy' && alert.labels.server === 'hung');
    assert.equal(hung?.state, 'firing', JSON.stringify(firing));
    assert.ok(
      firing.some((alert) => alert.labels.alertname === 'MCPServerGaveUp' && alert.labels.server === 'exits'),
      JSON.stringify(firing),
    );
    assert.ok(
      !firing.some((alert) => alert.labels.alertname === 'MCPServerUnhealthy' && alert.labels.server === 'up'),
      'the answering server raises no alert',
    );
  });
});
