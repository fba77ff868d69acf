// The OpenTelemetry MCP conventions the tracker hands its sinks: network.transport and mcp.protocol.version beside each
// probe, and one mcp.client.session.duration per connection, with error.type when it ended by a failure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerConfig, ServerState, ServerStatus } from '../../../src/core/model';
import type { MonitorEvent, MonitorRegistry } from '../../../src/core/monitorTypes';
import { EMPTY_PROBE_STATS } from '../../../src/core/monitor/probeStats';
import { conventionAttributes } from '../../../src/metrics/otlpSink';
import type { ProbeContext, ServerLabels } from '../../../src/metrics/series';
import { HealthTracker, type MetricsSink } from '../../../src/metrics/tracker';
import { serverConfig } from '../../helpers/serverConfig';

function status(cfg: ServerConfig, state: ServerState, extra: Partial<ServerStatus> = {}): ServerStatus {
  return {
    config: cfg,
    state,
    era: 'modern',
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

class Recorder implements MetricsSink {
  readonly probes: ProbeContext[] = [];
  readonly sessions: { seconds: number; errorType: string | undefined; context: ProbeContext; labels: ServerLabels }[] = [];
  probe(
    _labels: ServerLabels,
    _method: string,
    _outcome: string,
    _seconds: number | undefined,
    _errorType: string | undefined,
    context: ProbeContext,
  ): void {
    this.probes.push(context);
  }
  session(labels: ServerLabels, seconds: number, errorType: string | undefined, context: ProbeContext): void {
    this.sessions.push({ labels, seconds, errorType, context });
  }
  count(): void {}
  forget(): void {}
}

function setup(statuses: ServerStatus[]) {
  let listener: ((event: MonitorEvent) => void) | undefined;
  let list = statuses;
  const registry = {
    list: () => list,
    onEvent: (next: (event: MonitorEvent) => void) => ((listener = next), () => (listener = undefined)),
  } as unknown as MonitorRegistry;
  let now = 1_700_000_000_000;
  const sink = new Recorder();
  new HealthTracker(registry, [sink], { wall: () => now, timeoutMs: 1000 });
  return {
    sink,
    advance: (ms: number) => (now += ms),
    emit: (event: MonitorEvent) => listener?.(event),
    setList: (next: ServerStatus[]) => ((list = next), listener?.({ type: 'servers' })),
  };
}

void describe('OpenTelemetry MCP conventions', () => {
  void it('a probe carries network.transport (tcp for HTTP, pipe for stdio) and the negotiated protocol version', () => {
    const web = serverConfig('web', { transport: 'http', url: 'https://h/mcp' });
    const local = serverConfig('local');
    const { sink, emit } = setup([status(web, 'idle'), status(local, 'idle')]);
    emit({
      type: 'state',
      id: web.id,
      from: 'connecting',
      to: 'up',
      reason: '',
      status: status(web, 'up', { protocolVersion: '2025-06-18' }),
    });
    emit({
      type: 'state',
      id: local.id,
      from: 'connecting',
      to: 'up',
      reason: '',
      status: status(local, 'up', { protocolVersion: 'hostile"}\n' }),
    });
    emit({ type: 'probe', id: web.id, result: { method: 'ping', outcome: 'ok', rttMs: 2 }, status: status(web, 'up') });
    emit({ type: 'probe', id: local.id, result: { method: 'ping', outcome: 'ok', rttMs: 2 }, status: status(local, 'up') });
    assert.deepEqual(sink.probes, [
      { networkTransport: 'tcp', protocolVersion: '2025-06-18' },
      { networkTransport: 'pipe', protocolVersion: undefined },
    ]);
    assert.deepEqual(conventionAttributes(sink.probes[0]!), { 'network.transport': 'tcp', 'mcp.protocol.version': '2025-06-18' });
    // A version that is not a date never becomes an attribute value; the session id never is one at all.
    assert.deepEqual(conventionAttributes(sink.probes[1]!), { 'network.transport': 'pipe' });
  });

  void it('one session per connection: from connect to its end, error.type when it failed, none when closed on purpose', () => {
    const a = serverConfig('a');
    const { sink, emit, advance, setList } = setup([status(a, 'idle')]);
    const to = (from: ServerState, next: ServerState, extra: Partial<ServerStatus> = {}) =>
      emit({ type: 'state', id: a.id, from, to: next, reason: '', status: status(a, next, { protocolVersion: '2025-06-18', ...extra }) });
    to('idle', 'connecting');
    advance(500);
    assert.equal(sink.sessions.length, 0, 'connecting is no session yet');
    to('connecting', 'verifying');
    advance(1000);
    to('verifying', 'up');
    advance(2000);
    to('up', 'suspect');
    advance(500);
    to('suspect', 'down', { lastError: { kind: 'timeout', message: 'probe timed out' } });
    assert.deepEqual(
      sink.sessions.map(({ seconds, errorType }) => ({ seconds, errorType })),
      [{ seconds: 3.5, errorType: 'timeout' }],
    );
    assert.deepEqual(sink.sessions[0]!.context, { networkTransport: 'pipe', protocolVersion: '2025-06-18' });
    advance(10_000);
    to('down', 'connecting');
    to('connecting', 'up');
    advance(4000);
    to('up', 'disabled');
    assert.deepEqual(sink.sessions.at(-1), {
      labels: sink.sessions.at(-1)!.labels,
      seconds: 4,
      errorType: undefined,
      context: { networkTransport: 'pipe', protocolVersion: '2025-06-18' },
    });
    to('disabled', 'connecting');
    to('connecting', 'up');
    advance(1000);
    setList([]);
    assert.equal(sink.sessions.length, 3, 'a removed server ends its session');
    assert.deepEqual({ seconds: sink.sessions[2]!.seconds, errorType: sink.sessions[2]!.errorType }, { seconds: 1, errorType: undefined });
  });
});
