// A start is not a connect (issue 21, section 1): real stdio servers started by the CLI, their state sequences read
// from `watch --json`. No timing is asserted: each run is bounded, and stops as soon as what it waits for was seen.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, runCli } from '../../helpers/cli';
import { FIXTURES, faultStdio } from '../../helpers/servers';

const SLOW = path.join(FIXTURES, 'slow-start-server.mjs');
/** Every run ends by itself before runCli's SIGKILL guard. */
const WATCH_LIMIT_MS = '55000';

interface StateLine {
  readonly type: string;
  readonly server?: string;
  readonly from?: string;
  readonly to?: string;
  readonly reason?: string;
  readonly error?: { readonly kind: string; readonly message: string };
}

/** Runs `watch --json` until `done` says so (then Ctrl-C), returning every state line per server. */
async function watchStates(args: readonly string[], done: (states: ReadonlyMap<string, readonly StateLine[]>) => boolean) {
  const states = new Map<string, StateLine[]>();
  let child: ChildProcess | undefined;
  let stopped = false;
  const run = await runCli(['watch', ...args, '--json', '--no-user', '--duration-ms', WATCH_LIMIT_MS], {
    onStart: (started) => (child = started),
    onStdoutLine: (text) => {
      const line = JSON.parse(text) as StateLine;
      if (line.type !== 'state' || !line.server) return;
      states.set(line.server, [...(states.get(line.server) ?? []), line]);
      if (!stopped && done(states)) {
        stopped = true;
        child?.kill('SIGINT');
      }
    },
  });
  return { run, states, stopped };
}

const sequence = (lines: readonly StateLine[] | undefined) => (lines ?? []).map((line) => `${line.from}->${line.to}`);

describe('start-up budget, with real stdio servers', () => {
  let dir: string;
  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`node esbuild.js\` first`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-startup-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shows a server slower than the connect timeout as starting, then up; one that never answers is down after the budget, with that reason', async () => {
    const file = path.join(dir, 'slow.json');
    const slow = (ms: string) => ({
      type: 'stdio',
      command: process.execPath,
      args: [SLOW],
      env: { SLOW_START_MS: ms, SLOW_START_MARKER: path.join(dir, `warm-${ms}`) },
    });
    // The slow one takes longer than the connect timeout (1.5 s) to answer initialize, well within the budget (20 s).
    fs.writeFileSync(file, JSON.stringify({ servers: { slow: slow('4000'), never: slow('never') } }));
    const { states, stopped } = await watchStates(
      ['--config', file, '--connect-timeout-ms', '1500', '--startup-timeout-ms', '20000', '--interval-ms', '60000'],
      (seen) => sequence(seen.get('slow')).includes('starting->up') && (seen.get('never') ?? []).some((line) => line.to === 'down'),
    );
    assert.ok(stopped, `the run ended before both verdicts: ${JSON.stringify(Object.fromEntries(states))}`);
    assert.deepEqual(sequence(states.get('slow')), ['idle->starting', 'starting->up'], 'never down, never timed out');
    assert.deepEqual(sequence(states.get('never')), ['idle->starting', 'starting->down']);
    const down = states.get('never')!.at(-1)!;
    assert.deepEqual(down.error && { kind: down.error.kind, message: down.error.message }, {
      kind: 'timeout',
      message: 'did not start within 20 s',
    });
  });

  it('starts 15 real stdio servers at once with default settings: none is ever shown down or timed out', async () => {
    const file = path.join(dir, 'fifteen.json');
    const servers = Object.fromEntries(
      Array.from({ length: 15 }, (_, index) => [`s${index + 1}`, { type: 'stdio', ...faultStdio('none') }]),
    );
    fs.writeFileSync(file, JSON.stringify({ servers }));
    const names = Object.keys(servers);
    const { states, stopped } = await watchStates(['--config', file], (seen) =>
      names.every((name) => (seen.get(name) ?? []).some((line) => line.to === 'up')),
    );
    assert.ok(
      stopped,
      `not every server came up within the run: ${JSON.stringify(Object.fromEntries([...states].map(([name, lines]) => [name, sequence(lines)])))}`,
    );
    for (const name of names) {
      const lines = states.get(name) ?? [];
      assert.deepEqual(sequence(lines), ['idle->starting', 'starting->up'], name);
      assert.ok(!lines.some((line) => line.error?.kind === 'timeout'), `${name} timed out`);
    }
  });
});
