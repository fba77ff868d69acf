// Fault matrix, stdio rows: real fault-server children monitored by the real registry and connector.
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { MonitorSettings } from '../../../src/core/monitorTypes';
import { faultStdio, modernStdio } from '../../helpers/servers';
import {
  assertNoStorm,
  assertRow,
  describeObservation,
  hangAfterConnectRow,
  ignoresPingRow,
  modernOnlyRow,
  okProbes,
  settle,
  slowPongOverTimeoutRow,
  violationRow,
  wentTo,
} from './expect';
import { FAST_SETTINGS, isAlive, observe, ROW_CONCURRENCY, serverConfig, type Observed } from './harness';

let scratch = '';
before(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'mcp-health-faults-'));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

interface StdioRow {
  readonly name: string;
  readonly fault: string;
  readonly settings?: Partial<MonitorSettings>;
  /** Parsing 50 MB blocks this process's event loop for everyone: such rows run alone, after the others. */
  readonly heavy?: boolean;
  readonly check: (observed: Observed, t: TestContext, pidfile: string) => Promise<void>;
}

async function exitRow(observed: Observed, t: TestContext, expect: { exitCode?: number; signal?: string; said: RegExp }): Promise<void> {
  await settle(observed, 'an exit report', (s) => s.lastError?.kind === 'exited');
  const error = observed.status().lastError;
  if (expect.exitCode !== undefined) assertRow(error?.exitCode === expect.exitCode, `exit code ${expect.exitCode} reported`, observed);
  if (expect.signal) assertRow(error?.signal === expect.signal, `signal ${expect.signal} reported`, observed);
  assertRow(expect.said.test(error?.stderrTail ?? ''), 'stderr tail carried in the error', observed);
  // The interval is far longer than the observation: no probe was ever sent, so the exit came from the OS at once.
  assertRow(
    observed.connector.connections.every((c) => c.probes.length === 0),
    'no probe needed to notice the exit',
    observed,
  );
  await settle(
    observed,
    'recovery by a fresh child',
    (s, transitions) =>
      transitions.some((tr, i) => tr.to === 'up' && transitions.slice(0, i).some((e) => e.error?.kind === 'exited')) || s.restarts >= 1,
  );
  assertNoStorm(t, observed);
}

const QUIET_INTERVAL: Partial<MonitorSettings> = { intervalMs: { stdio: 60_000, http: 60_000, sse: 60_000 } };

const rows: StdioRow[] = [
  {
    name: 'hang after connect -> timeout, down, one probe per connection, reconnect',
    fault: 'hang-all',
    check: hangAfterConnectRow,
  },
  {
    name: 'hang from the start -> connect timeout, down, backoff',
    fault: 'hang-start',
    settings: { connectTimeoutMs: 1_500 },
    check: async (observed, t) => {
      await settle(observed, 'a connect timeout', (s) => s.lastError?.kind === 'timeout' && s.state !== 'up');
      assertRow(observed.connector.connections.length === 0, 'never connected', observed);
      assertRow(wentTo(observed.transitions, 'down', 'timeout'), 'down with a timeout', observed);
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'slow pong under the timeout -> up, RTT shows the delay, no reconnect',
    fault: 'slow-pong:150',
    settings: { timeoutMs: 2_000 },
    check: async (observed, t) => {
      await settle(observed, 'two answered pings', () => okProbes(observed, 'ping') >= 2);
      const status = observed.status();
      assertRow(status.state === 'up' && status.lastError === null, 'up without error', observed);
      assertRow((status.lastRttMs ?? 0) >= 140, `RTT ${status.lastRttMs} reflects the 150 ms delay`, observed);
      assertRow(observed.connector.attempts.length === 1, 'one connect', observed);
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'slow pong over the timeout -> timeout, down, never retried',
    fault: 'slow-pong:3000',
    check: slowPongOverTimeoutRow,
  },
  {
    name: 'non-empty pong -> suspect, one reconnect, then non-conformant on tools/list',
    fault: 'nonempty-pong',
    check: (o, t) => violationRow(o, t, 'non-empty'),
  },
  {
    name: 'error pong -> suspect, one reconnect, then non-conformant on tools/list',
    fault: 'error-pong',
    check: (o, t) => violationRow(o, t, 'error-reply'),
  },
  {
    name: 'ignores ping -> one reconnect, then non-conformant probed with tools/list, no storm',
    fault: 'ignore-ping',
    check: ignoresPingRow,
  },
  {
    name: 'crash with an exit code -> exited at once with code and stderr tail, then a fresh child',
    fault: 'exit:3:4000',
    settings: QUIET_INTERVAL,
    check: (observed, t) => exitRow(observed, t, { exitCode: 3, said: /exiting with code 3/ }),
  },
  {
    name: 'crash by signal -> exited at once with the signal, then a fresh child',
    fault: 'signal:SIGKILL:4000',
    settings: QUIET_INTERVAL,
    check: (observed, t) => exitRow(observed, t, { signal: 'SIGKILL', said: /sending SIGKILL/ }),
  },
  {
    name: 'ignores SIGTERM -> up; closing still kills it',
    fault: 'ignore-sigterm',
    check: async (observed, t, pidfile) => {
      await settle(observed, 'up', (s) => s.state === 'up');
      const [pid] = readPids(pidfile);
      assertRow(isAlive(pid), 'server running', observed);
      const started = performance.now();
      await observed.dispose();
      t.diagnostic(`close of a SIGTERM-ignoring server took ${Math.round(performance.now() - started)} ms`);
      assert.ok(await gone([pid], 5_000), `pid ${pid} survived close`);
    },
  },
  {
    name: 'spawns children -> none left after close',
    fault: 'spawn-children',
    check: async (observed, _t, pidfile) => {
      await settle(observed, 'up', (s) => s.state === 'up');
      const pids = readPids(pidfile);
      assertRow(pids.length === 3 && pids.every(isAlive), 'server and two grandchildren running', observed);
      await observed.dispose();
      assert.ok(await gone(pids, 5_000), `left behind: ${pids.filter(isAlive).join(', ')}`);
    },
  },
  {
    name: 'garbage on stdout -> dropped, still up',
    fault: 'garbage-stdout',
    check: async (observed, t) => {
      await settle(observed, 'two answered pings', () => okProbes(observed, 'ping') >= 2);
      assertRow(observed.status().state === 'up' && observed.connector.attempts.length === 1, 'up on one connection', observed);
      assertRow(
        observed.logger.lines.some((line) => /non-JSON stdout/.test(line)),
        'dropped lines logged at debug',
        observed,
      );
      assertNoStorm(t, observed);
    },
  },
  {
    name: 'stderr flood -> bounded tail, still up',
    fault: 'stderr-flood',
    check: async (observed, t) => {
      await settle(observed, 'two answered pings', () => okProbes(observed, 'ping') >= 2);
      const status = observed.status();
      assertRow(status.state === 'up' && observed.connector.attempts.length === 1, 'up on one connection', observed);
      assertRow(
        status.stderrTail.length > 0 && status.stderrTail.length <= 4_096,
        `stderr tail bounded (${status.stderrTail.length})`,
        observed,
      );
      t.diagnostic(`stderr tail kept: ${status.stderrTail.length} chars of ~10 MiB`);
    },
  },
  {
    name: '50 MB message (tools/list fallback of a non-conformant server) -> carried, alive',
    fault: 'nonempty-pong,big-message:52428800',
    heavy: true,
    settings: { timeoutMs: 15_000 },
    check: async (observed) => {
      await settle(observed, 'a 50 MB tools/list answered', (s) => s.nonConformant && okProbes(observed, 'tools/list') >= 1, 40_000);
      assertRow(observed.status().state === 'suspect' && observed.connector.attempts.length === 2, 'alive, no further reconnect', observed);
    },
  },
  {
    name: 'modern-only server -> up on server/discover, never pinged',
    fault: 'modern',
    check: modernOnlyRow,
  },
];

function readPids(pidfile: string): number[] {
  return readFileSync(pidfile, 'utf8').split('\n').filter(Boolean).map(Number);
}

async function gone(pids: readonly number[], timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (!pids.some(isAlive)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !pids.some(isAlive);
}

function defineRow(row: StdioRow): void {
  void it(`${row.fault} over stdio: ${row.name}`, async (t) => {
    const pidfile = path.join(scratch, `${row.fault.replace(/[^a-z0-9]+/gi, '_')}.pids`);
    const launch = row.fault === 'modern' ? modernStdio() : faultStdio(row.fault, ['--pidfile', pidfile, '--max-lifetime-ms', '120000']);
    const observed = observe(serverConfig(`stdio-${row.fault}`, 'stdio', launch), { ...FAST_SETTINGS, ...row.settings });
    try {
      await row.check(observed, t, pidfile);
    } catch (error) {
      t.diagnostic(describeObservation(observed));
      throw error;
    } finally {
      await observed.dispose();
    }
  });
}

void describe('fault matrix: stdio', { concurrency: ROW_CONCURRENCY }, () => {
  for (const row of rows.filter((r) => !r.heavy)) defineRow(row);
});

void describe('fault matrix: stdio, heavy rows one at a time', { concurrency: 1 }, () => {
  for (const row of rows.filter((r) => r.heavy)) defineRow(row);
});
