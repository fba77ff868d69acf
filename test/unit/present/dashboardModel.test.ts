import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeRecord, ServerState } from '../../../src/core/model';
import { DASHBOARD_PROBES, dashboardServers } from '../../../src/present/dashboardModel';
import { probes, status } from './fixtures';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const realStderr = (name: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'stderr', `${name}.txt`), 'utf8');

void describe('the next step for an exited server, from its real stderr (the cause the CLI and the tree give too)', () => {
  const exited = (fixture: string) => ({
    kind: 'exited' as const,
    message: 'Process exited with code 1 while connecting',
    exitCode: 1,
    stderrTail: realStderr(fixture),
  });
  const card = (name: string, fixture: string) => dashboardServers([status(name, { state: 'down', lastError: exited(fixture) })])[0];

  void it('names the environment variable and the server', () => {
    const server = card('stripe', 'stripe-no-key');
    assert.equal(server?.nextStep, 'Set STRIPE_SECRET_KEY in the "env" of "stripe" in its config file');
    assert.match(server?.why ?? '', /^The server exited with code 1: /);
  });

  void it('names the flag when no variable is named', () => {
    assert.equal(card('weather', 'python-argparse-required')?.nextStep, 'Add --api-key to the "args" of "weather" in its config file');
  });

  void it('names the missing file', () => {
    assert.equal(
      card('files', 'node-missing-file')?.nextStep,
      'Check that ./server-config.json exists, or fix the path in the "args" or "cwd" of "files" in its config file',
    );
  });

  void it('keeps the general advice when the stderr names nothing to set', () => {
    assert.match(card('py', 'python-module-not-found')?.nextStep ?? '', /^Look at the server's stderr in the log/);
  });
});

void describe('dashboardServers', () => {
  void it('gives each server its id, name, health, summary, transport, statistics and probes', () => {
    const [server] = dashboardServers([
      status('files', {
        lastRttMs: 4,
        restarts: 1,
        stats: { p50Ms: 4, p95Ms: 11, uptimePercent: 98.5, recent: probes(['ok', 'timeout']) },
      }),
    ]);
    assert.deepEqual(server, {
      id: '/ws/app/.vscode/mcp.json#files',
      name: 'files',
      health: 'ok',
      summary: 'up · 4 ms',
      transport: 'stdio',
      p50Ms: 4,
      p95Ms: 11,
      uptimePercent: 98.5,
      history: null,
      restarts: 1,
      lastError: null,
      why: null,
      nextStep: null,
      note: null,
      probeable: true,
      probes: [
        { at: 1_000, ok: true, rttMs: 2, outcome: 'ok' },
        { at: 2_000, ok: false, rttMs: null, outcome: 'timeout' },
      ],
      beats: [
        { at: 1_000, ok: true, rttMs: 2, outcome: 'ok' },
        { at: 2_000, ok: false, rttMs: null, outcome: 'timeout' },
      ],
    });
  });

  void it('puts restarts into the heartbeat in time order, so a crash loop that answers every probe still shows red', () => {
    const [server] = dashboardServers([
      status('crashing', {
        restarts: 2,
        stats: { recent: probes(['ok', 'ok', 'ok']), restartTimes: [1_500, 2_500] },
      }),
    ]);
    assert.deepEqual(
      server?.beats.map((beat) => [beat.at, beat.outcome, beat.ok]),
      [
        [1_000, 'ok', true],
        [1_500, 'restart', false],
        [2_000, 'ok', true],
        [2_500, 'restart', false],
        [3_000, 'ok', true],
      ],
    );
    assert.ok(
      server?.probes.every((probe) => probe.outcome !== 'restart'),
      'the latency chart gets probes only',
    );
  });

  void it('is plain data that survives the trip to the webview unchanged', () => {
    const servers = dashboardServers([status('a', { stats: { recent: probes(['ok', 'closed']) } }), status('b', { state: 'down' })]);
    assert.deepEqual(JSON.parse(JSON.stringify(servers)), servers);
  });

  void it('keeps only the most recent probes', () => {
    const recent: ProbeRecord[] = probes(Array.from({ length: DASHBOARD_PROBES + 15 }, (_, index) => (index % 3 === 0 ? 'timeout' : 'ok')));
    const [server] = dashboardServers([status('a', { stats: { recent } })]);
    assert.equal(server?.probes.length, DASHBOARD_PROBES);
    assert.deepEqual(
      server?.probes.map((probe) => probe.at),
      recent.slice(-DASHBOARD_PROBES).map((probe) => probe.at),
    );
  });

  void it('offers probing only for servers that can be probed now', () => {
    const states: ServerState[] = [
      'idle',
      'connecting',
      'up',
      'down',
      'suspect',
      'auth-required',
      'needs-input',
      'config-error',
      'disabled',
      'untrusted',
    ];
    const probeable = dashboardServers(states.map((state) => status(state, { state })))
      .filter((server) => server.probeable)
      .map((server) => server.name);
    assert.deepEqual(probeable, ['idle', 'connecting', 'up', 'down', 'suspect', 'auth-required']);
  });

  void it('shows a flapping up server as a warning', () => {
    const [server] = dashboardServers([status('a', { flapping: true, restarts: 5 })]);
    assert.equal(server?.health, 'warning');
    assert.match(server?.summary ?? '', /flapping, 5 restarts/);
  });

  void it('keeps the order it was given and returns nothing for no servers', () => {
    assert.deepEqual(
      dashboardServers([status('z'), status('a')]).map((server) => server.name),
      ['z', 'a'],
    );
    assert.deepEqual(dashboardServers([]), []);
  });
});
