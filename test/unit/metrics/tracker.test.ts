// The tracker and the prom-client sink, fed MonitorEvents as the registry emits them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerConfig, ServerState, ServerStatus } from '../../../src/core/model';
import type { MonitorEvent, MonitorRegistry } from '../../../src/core/monitorTypes';
import { PromSink } from '../../../src/metrics/promSink';
import { otlpConfigured, otlpProtocolWarning } from '../../../src/metrics/otlpSink';
import { HealthTracker, lateSource } from '../../../src/metrics/tracker';
import { EMPTY_PROBE_STATS } from '../../../src/core/monitor/probeStats';
import { bodyText } from '../../helpers/exposition';
import { serverConfig } from '../../helpers/serverConfig';

function config(name: string, extra: Partial<ServerConfig> = {}): ServerConfig {
  return serverConfig(name, {
    source: { file: '/work/.vscode/mcp.json', line: 1, column: 1, folder: undefined },
    args: undefined,
    ...extra,
  });
}

function status(cfg: ServerConfig, state: ServerState, extra: Partial<ServerStatus> = {}): ServerStatus {
  return {
    config: cfg,
    state,
    era: null,
    protocolVersion: null,
    serverInfo: null,
    lastRttMs: null,
    lastError: null,
    lastProbeAt: null,
    lastStateChangeAt: null,
    consecutiveFailures: 0,
    restarts: 0,
    flapping: false,
    nonConformant: false,
    stats: EMPTY_PROBE_STATS,
    stderrTail: '',
    pid: null,
    ...extra,
  };
}

/** The event side of a registry: what the tracker subscribes to. */
class EventSource {
  statuses: ServerStatus[] = [];
  private listener: ((event: MonitorEvent) => void) | undefined;
  readonly registry = {
    list: () => this.statuses,
    onEvent: (listener: (event: MonitorEvent) => void) => {
      this.listener = listener;
      return () => (this.listener = undefined);
    },
  } as unknown as MonitorRegistry;
  emit(event: MonitorEvent): void {
    this.listener?.(event);
  }
  subscribed(): boolean {
    return this.listener !== undefined;
  }
}

function setup(servers: ServerStatus[]) {
  const source = new EventSource();
  source.statuses = servers;
  const sink = new PromSink(
    lateSource(() => tracker),
    { version: '9.9.9', frontEnd: 'cli' },
  );
  let now = 1_700_000_000_000;
  const tracker: HealthTracker = new HealthTracker(source.registry, [sink], { wall: () => now, timeoutMs: 2_000 });
  const text = async () => bodyText(await sink.render(undefined));
  return { source, tracker, sink, text, advance: (ms: number) => (now += ms) };
}

function line(text: string, prefix: string): string | undefined {
  return text.split('\n').find((candidate) => candidate.startsWith(prefix));
}

void describe('metrics tracker', () => {
  void it('publishes up, one-hot state, flapping and build info from the registry', async () => {
    const a = config('a');
    const { source, text } = setup([status(a, 'idle')]);
    source.emit({ type: 'state', id: a.id, from: 'idle', to: 'connecting', reason: 'start', status: status(a, 'connecting') });
    source.emit({
      type: 'state',
      id: a.id,
      from: 'connecting',
      to: 'up',
      reason: 'connected',
      status: status(a, 'up', { era: 'handshake' }),
    });
    const body = await text();
    const labels = 'server="a",transport="stdio",source_file="/work/.vscode/mcp.json",era="handshake"';
    assert.equal(line(body, `mcp_health_up{${labels}}`), `mcp_health_up{${labels}} 1`);
    assert.equal(line(body, `mcp_health_state{${labels},state="up"}`)?.endsWith(' 1'), true);
    assert.equal(body.split('\n').filter((row) => row.startsWith('mcp_health_state{') && row.endsWith(' 1')).length, 1, 'one-hot');
    assert.equal(line(body, `mcp_health_flapping{${labels}}`), `mcp_health_flapping{${labels}} 0`);
    assert.match(body, /mcp_health_build_info\{version="9\.9\.9",nodejs_version="v\d+[^"]*",front_end="cli"\} 1/);
    assert.doesNotMatch(body, /era=""/, 'the series of the unknown era went when the era was learned');
  });

  void it('publishes mcp_health_healthy: 1 only when up, not flapping and not slow, following the flags between states', async () => {
    const a = config('a');
    const { source, text } = setup([status(a, 'idle', { era: 'handshake' })]);
    const labels = 'server="a",transport="stdio",source_file="/work/.vscode/mcp.json",era="handshake"';
    const read = async () => ({
      up: line(await text(), `mcp_health_up{${labels}}`)?.split(' ')[1],
      healthy: line(await text(), `mcp_health_healthy{${labels}}`)?.split(' ')[1],
    });
    source.emit({ type: 'state', id: a.id, from: 'idle', to: 'up', reason: '', status: status(a, 'up', { era: 'handshake' }) });
    assert.deepEqual(await read(), { up: '1', healthy: '1' });
    // A crash loop between two crashes: up, and flapping. mcp_health_up reads 1; healthy does not.
    source.emit({
      type: 'state',
      id: a.id,
      from: 'up',
      to: 'starting',
      reason: '',
      status: status(a, 'starting', { era: 'handshake', flapping: true, restarts: 3 }),
    });
    source.emit({
      type: 'state',
      id: a.id,
      from: 'starting',
      to: 'up',
      reason: '',
      status: status(a, 'up', { era: 'handshake', flapping: true, restarts: 3 }),
    });
    assert.deepEqual(await read(), { up: '1', healthy: '0' });
    // The flag clears without a state change: a status event.
    source.emit({ type: 'status', id: a.id, status: status(a, 'up', { era: 'handshake', restarts: 3 }) });
    assert.deepEqual(await read(), { up: '1', healthy: '1' });
    source.emit({ type: 'status', id: a.id, status: status(a, 'up', { era: 'handshake', restarts: 3, slow: true }) });
    assert.deepEqual(await read(), { up: '1', healthy: '0' });
    source.emit({
      type: 'state',
      id: a.id,
      from: 'up',
      to: 'gave-up',
      reason: '',
      status: status(a, 'gave-up', { era: 'handshake', restarts: 3 }),
    });
    assert.deepEqual(await read(), { up: '0', healthy: '0' });
  });

  void it('keeps the state one-hot in every state of the model, verifying and needs-consent included', async () => {
    const a = config('a');
    const { source, text } = setup([status(a, 'idle', { era: 'modern' })]);
    for (const to of ['verifying', 'needs-consent'] as const) {
      source.emit({ type: 'state', id: a.id, from: 'idle', to, reason: '', status: status(a, to, { era: 'modern' }) });
      const hot = (await text()).split('\n').filter((row) => row.startsWith('mcp_health_state{') && row.endsWith(' 1'));
      assert.deepEqual(
        hot.map((row) => /state="([^"]+)"/.exec(row)![1]),
        [to],
      );
    }
  });

  void it('records probe durations in the semantic-convention buckets, timeouts at the timeout, with error_type', async () => {
    const a = config('a');
    const { source, text, advance } = setup([status(a, 'up', { era: 'modern' })]);
    advance(1000);
    source.emit({ type: 'probe', id: a.id, result: { method: 'server/discover', outcome: 'ok', rttMs: 15 }, status: status(a, 'up') });
    source.emit({ type: 'probe', id: a.id, result: { method: 'server/discover', outcome: 'timeout' }, status: status(a, 'up') });
    source.emit({ type: 'probe', id: a.id, result: { method: 'server/discover', outcome: 'closed' }, status: status(a, 'up') });
    source.emit({
      type: 'probe',
      id: a.id,
      result: { method: 'server/discover', outcome: 'error-reply', rttMs: 3 },
      status: status(a, 'up'),
    });
    const body = await text();
    const labels = 'server="a",transport="stdio",source_file="/work/.vscode/mcp.json",era="modern"';
    assert.equal(
      line(body, `mcp_client_operation_duration_seconds_bucket{${labels},mcp_method_name="server/discover",le="0.02"}`)?.endsWith(' 1'),
      true,
      body,
    );
    assert.equal(
      line(body, `mcp_client_operation_duration_seconds_sum{${labels},mcp_method_name="server/discover",error_type="timeout"}`),
      `mcp_client_operation_duration_seconds_sum{${labels},mcp_method_name="server/discover",error_type="timeout"} 2`,
    );
    assert.ok(!body.includes('error_type="closed"'), 'a probe without any timing is counted, not timed');
    assert.equal(line(body, `mcp_health_probes_total{${labels},result="closed"}`)?.endsWith(' 1'), true);
    assert.equal(line(body, `mcp_health_protocol_violations_total{${labels}}`), `mcp_health_protocol_violations_total{${labels}} 1`);
    assert.equal(
      line(body, `mcp_health_last_probe_timestamp_seconds{${labels}}`),
      `mcp_health_last_probe_timestamp_seconds{${labels}} 1700000001`,
    );
    const buckets = body
      .split('\n')
      .filter((row) => row.startsWith('mcp_client_operation_duration_seconds_bucket{') && row.includes('error_type="timeout"'));
    assert.deepEqual(
      buckets.map((row) => /[{,]le="([^"]+)"/.exec(row)![1]),
      ['0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1', '2', '5', '10', '30', '60', '120', '300', '+Inf'],
    );
  });

  void it('counts restarts by their delta and reconnects after the first connect', async () => {
    const a = config('a');
    const { source, text } = setup([status(a, 'idle', { era: 'handshake' })]);
    const to = (from: ServerState, next: ServerState, restarts: number) =>
      source.emit({ type: 'state', id: a.id, from, to: next, reason: '', status: status(a, next, { era: 'handshake', restarts }) });
    to('idle', 'connecting', 0);
    to('connecting', 'up', 0);
    to('up', 'down', 1);
    to('down', 'connecting', 1);
    to('connecting', 'up', 1);
    to('up', 'down', 3);
    to('down', 'connecting', 3);
    const body = await text();
    assert.match(body, /mcp_health_restarts_total\{[^}]*\} 3\n/);
    assert.match(body, /mcp_health_reconnects_total\{[^}]*\} 2\n/);
  });

  void it('counts the retries of a server that stays down, and tool drift', async () => {
    const a = config('a');
    const { source, text } = setup([status(a, 'idle', { era: 'handshake' })]);
    const down = status(a, 'down', { era: 'handshake' });
    source.emit({
      type: 'state',
      id: a.id,
      from: 'idle',
      to: 'connecting',
      reason: '',
      status: status(a, 'connecting', { era: 'handshake' }),
    });
    source.emit({ type: 'state', id: a.id, from: 'connecting', to: 'down', reason: '', status: down });
    // Scheduling a retry is not an attempt; starting one is.
    source.emit({ type: 'status', id: a.id, status: down });
    source.emit({ type: 'status', id: a.id, status: down, reconnecting: true });
    source.emit({ type: 'status', id: a.id, status: down, reconnecting: true });
    source.emit({
      type: 'tools-changed',
      id: a.id,
      status: down,
      drift: { added: ['x'], removed: [], changed: [], summary: 'added x', baselineHash: 'b', hash: 'h' } as never,
    });
    const body = await text();
    assert.match(body, /mcp_health_reconnects_total\{[^}]*\} 2\n/);
    assert.match(body, /mcp_health_tools_changed_total\{[^}]*\} 1\n/);
  });

  void it('drops every series of a removed server, and stops listening on dispose', async () => {
    const a = config('a');
    const b = config('b', { transport: 'http', url: 'https://user:hunter2@example.test/mcp?token=s3cret', command: undefined });
    const { source, tracker, text } = setup([status(a, 'up'), status(b, 'up')]);
    source.emit({
      type: 'probe',
      id: b.id,
      result: { method: 'ping', outcome: 'ok', rttMs: 1, requestId: 'req-77' },
      status: status(b, 'up'),
    });
    source.emit({ type: 'probe', id: b.id, result: { method: 'ping', outcome: 'timeout' }, status: status(b, 'up') });
    const before = await text();
    assert.ok(before.includes('server="b"'));
    assert.doesNotMatch(before, /hunter2|s3cret|example\.test|req-77/, 'no URL, credential or request id in any label');
    source.statuses = [status(a, 'up')];
    source.emit({ type: 'servers' });
    const afterRemoval = await text();
    assert.ok(!afterRemoval.includes('server="b"'), afterRemoval);
    assert.ok(afterRemoval.includes('server="a"'));
    tracker.dispose();
    assert.equal(source.subscribed(), false);
  });

  void it('serves OpenMetrics when asked for it, the text format otherwise, counters named right in both', async () => {
    const a = config('a');
    const { sink, source } = setup([status(a, 'up')]);
    source.emit({ type: 'probe', id: a.id, result: { method: 'ping', outcome: 'ok', rttMs: 1 }, status: status(a, 'up') });
    const accept = 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5';
    // Concurrent scrapes of both kinds, as two Prometheus servers would send them.
    const [openMetrics, text, again] = await Promise.all([sink.render(accept), sink.render('*/*'), sink.render(accept)]);
    for (const om of [openMetrics, again]) {
      assert.match(om.contentType, /^application\/openmetrics-text/);
      assert.match(bodyText(om), /# EOF\n$/);
      assert.match(bodyText(om), /^# TYPE mcp_health_probes counter$/m);
      assert.match(bodyText(om), /^mcp_health_probes_total\{/m);
    }
    assert.match(text.contentType, /^text\/plain; version=0\.0\.4/);
    assert.match(bodyText(text), /^# TYPE mcp_health_probes_total counter$/m);
    assert.match(bodyText(text), /^mcp_health_probes_total\{/m);
    assert.doesNotMatch(bodyText(text), /# EOF/);
  });

  void it('OTLP is off unless an endpoint is set, and says so when asked for a protocol it does not speak', () => {
    assert.equal(otlpConfigured({}), false);
    assert.equal(otlpConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
    assert.equal(otlpConfigured({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:4318/v1/metrics' }), true);
    assert.equal(otlpConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_METRICS_EXPORTER: 'none' }), false);
    assert.equal(otlpProtocolWarning({ OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' }), undefined);
    assert.match(otlpProtocolWarning({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }) ?? '', /"grpc" is not supported/);
  });
});
