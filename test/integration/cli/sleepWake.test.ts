// Sleep and wake, end to end: the bundled CLI watches a real Streamable HTTP server on 127.0.0.1 and is frozen
// (SIGSTOP) for longer than its interval and the suspend threshold, while the server is killed and started again on
// the same port, so the session the CLI holds is gone. After SIGCONT the CLI must say it woke, probe at once (one
// round, not a burst of catch-up timers), re-establish the session, and leave the frozen time out of its history.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HistoryRecord } from '../../../src/core/history';
import { SUSPEND_THRESHOLD_MS } from '../../../src/core/monitor/suspend';
import { runCli } from '../../helpers/cli';
import { freePort, startFaultHttp, type RunningServer } from '../../helpers/servers';
import { sleep, waitFor } from '../../helpers/wait';

const INTERVAL_MS = 1_000;
/** Longer than the interval and the threshold, with margin for a loaded machine. */
const FROZEN_MS = SUSPEND_THRESHOLD_MS + 4_000;
const DURATION_MS = 30_000;

interface Line {
  readonly ts: string;
  readonly type: string;
  readonly [key: string]: unknown;
}

describe('mcp-health watch across a sleep (SIGSTOP while its HTTP server restarts)', () => {
  let dir: string;
  let server: RunningServer | undefined;
  let cli: ChildProcess | undefined;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-sleep-wake-'));
  });
  after(async () => {
    // Only what this test started, by pid: a CLI left stopped would never end on its own.
    if (cli?.pid !== undefined && cli.exitCode === null && cli.signalCode === null) {
      process.kill(cli.pid, 'SIGCONT');
      cli.kill('SIGKILL');
    }
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    'says it woke, probes once at once, reconnects the expired session and counts the gap neither up nor down',
    { timeout: 90_000 },
    async () => {
      const port = await freePort();
      server = await startFaultHttp('http', 'none', ['--port', String(port)]);
      const config = path.join(dir, 'mcp.json');
      fs.writeFileSync(config, JSON.stringify({ servers: { remote: { type: 'http', url: server.url } } }));
      const history = path.join(dir, 'history.jsonl');
      const lines: Line[] = [];
      const running = runCli(
        [
          'watch',
          '--config',
          config,
          '--history',
          history,
          '--interval-ms',
          String(INTERVAL_MS),
          '--duration-ms',
          String(DURATION_MS),
          '--json',
        ],
        {
          onStart: (child) => (cli = child),
          onStdoutLine: (text) => lines.push(JSON.parse(text) as Line),
        },
      );
      await waitFor('a first answered probe', () => lines.some((line) => line.type === 'probe' && line.ok === true), 20_000);
      const pid = cli!.pid!;

      process.kill(pid, 'SIGSTOP');
      const frozenAt = Date.now();
      await server.stop();
      server = await startFaultHttp('http', 'none', ['--port', String(port)]);
      await sleep(Math.max(0, frozenAt + FROZEN_MS - Date.now()));
      process.kill(pid, 'SIGCONT');
      const run = await running;
      assert.equal(run.code, 0, `healthy at the end\n${run.stdout}\n${run.stderr}`);

      // By the CLI's own time stamps: a line written before the freeze may still have been in the pipe.
      const after = lines.filter((line) => line.type !== 'summary' && Date.parse(line.ts) >= frozenAt);
      const wakes = after.filter((line) => line.type === 'wake');
      assert.equal(wakes.length, 1, `one wake line\n${run.stdout}`);
      const wake = wakes[0]!;
      assert.match(String(wake.message), /^resumed after \d+ s asleep: probing all servers$/);
      assert.ok(Number(wake.sleptMs) >= SUSPEND_THRESHOLD_MS, `slept ${String(wake.sleptMs)} ms`);

      // The wake comes before any probe, so no late timer probed on its own (waiting I/O, such as the closed stream of
      // the old session, may be handled just before it). Then one probe round: at most one probe fails on the old
      // session (one, not one per late timer), and the probes after it answer on a new one.
      const wakeAt = after.indexOf(wake);
      assert.ok(
        after.slice(0, wakeAt).every((line) => line.type !== 'probe'),
        `no probe before the wake\n${run.stdout}`,
      );
      const sinceWake = after.slice(wakeAt + 1);
      const probes = sinceWake.filter((line) => line.type === 'probe');
      assert.ok(probes.filter((line) => line.ok === false).length <= 1, `one probe round after the wake\n${run.stdout}`);
      const firstOk = probes.findIndex((line) => line.ok === true);
      assert.ok(firstOk >= 0 && firstOk <= 1, `the first or second probe after the wake answers\n${run.stdout}`);
      assert.ok(
        probes.slice(firstOk).every((line) => line.ok === true),
        `every probe after that answers\n${run.stdout}`,
      );
      // The restarted server knows only the sessions it opened, so the answered probe above was on a new session. Two
      // ways get there, by the order the woken process handles things in: the old session's socket is found closed
      // first (the probe fails, the monitor reconnects: a state line to up and a restart), or the probe goes out on a
      // new socket, the server answers 404 and the connection opens a new session within the same probe (specified:
      // a client whose session is gone starts a new one), which changes no state.
      const reconnected = probes.some((line) => line.ok === false);
      if (reconnected) {
        assert.ok(
          sinceWake.some((line) => line.type === 'state' && line.to === 'up') ||
            after.slice(0, wakeAt).some((line) => line.type === 'state' && line.to === 'up'),
          `up again after the wake\n${run.stdout}`,
        );
      }
      // No storm: the failure and the recovery are a handful of state lines, not one per late timer.
      assert.ok(sinceWake.filter((line) => line.type === 'state').length <= 4, `state lines after the wake\n${run.stdout}`);

      // The frozen time is in neither up nor down: what the history observed is the run minus the gap.
      const records = fs
        .readFileSync(history, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as HistoryRecord);
      const observed = records.reduce((total, record) => total + record.upMs + record.downMs, 0);
      assert.ok(observed > 0, 'something was observed');
      assert.ok(
        observed <= run.elapsedMs - (FROZEN_MS - 2 * INTERVAL_MS),
        `observed ${observed} ms of a ${Math.round(run.elapsedMs)} ms run frozen for ${FROZEN_MS} ms`,
      );
      const summary = lines.at(-1)!;
      assert.equal(summary.type, 'summary');
      const [remote] = summary.servers as { state: string; restarts: number }[];
      assert.equal(remote?.state, 'up');
      if (reconnected) assert.ok((remote?.restarts ?? 0) >= 1, 'the session was re-established: a new connection, not the old one');
    },
  );
});
