// What the CLI prints when things go wrong: a failed server's stderr, hostile control sequences, Ctrl-C mid-check,
// and bad input (a missing --config file, absurd numbers).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES, faultStdio } from '../../helpers/servers';
import { runCli as runCliIn, type CliRun } from '../../helpers/cli';
import { isAlive } from '../../helpers/processes';
import { waitUntil } from '../../helpers/wait';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const HOSTILE = path.join(FIXTURES, 'hostile-server.mjs');
/** ESC, BEL, backspace and the one-byte CSI: none may reach a terminal from a table or a JSON document. */
const CONTROL = /[\x07\x08\x1b\x9b]/;

function runCli(args: string[], onStart?: (child: ChildProcess) => void): Promise<CliRun> {
  return runCliIn(args, { onStart });
}

describe('mcp-health CLI verdicts', () => {
  let dir: string;
  const write = (name: string, servers: Record<string, unknown>) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify({ servers }, null, 2));
    return file;
  };

  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: run \`node esbuild.js\` first`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-verdict-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shows why a stdio server failed: its stderr tail under the row and as stderrTail in JSON', async () => {
    const file = write('exits.json', { exits: { type: 'stdio', ...faultStdio('exit:3') } });
    const json = await runCli(['check', '--config', file, '--json']);
    assert.equal(json.code, 1);
    const doc = JSON.parse(json.stdout) as { servers: Array<{ name: string; exitCode: number | null; stderrTail: string | null }> };
    assert.equal(doc.servers[0].exitCode, 3);
    assert.match(doc.servers[0].stderrTail ?? '', /fault-server\[\d+\]: transport=stdio fault=exit:3/);

    const table = await runCli(['check', '--config', file]);
    const lines = table.stdout.split('\n');
    const row = lines.findIndex((line) => line.startsWith('exits '));
    assert.ok(row >= 0, table.stdout);
    assert.match(lines[row + 1], /^\s+stderr: fault-server\[\d+\]: transport=stdio fault=exit:3$/);
  });

  it("shows a Node crash's thrown error under the row, not only its stack and the Node.js trailer", async () => {
    // The stderr the real @stripe/mcp wrote without a key (test/fixtures/stderr/stripe-no-key.txt), then exit 1.
    const file = write('stripe.json', { stripe: { type: 'stdio', ...faultStdio('crash-like:stripe-no-key') } });
    const table = await runCli(['check', '--config', file]);
    assert.equal(table.code, 1);
    const lines = table.stdout.split('\n');
    const row = lines.findIndex((line) => line.startsWith('stripe '));
    assert.ok(row >= 0, table.stdout);
    assert.equal(
      lines[row + 1]?.trim(),
      'stderr: Error: Stripe API key not provided. Please either pass it as an argument --api-key=$KEY or set the STRIPE_SECRET_KEY environment variable.',
    );
    assert.equal(lines[row + 2]?.trim(), 'stderr: Node.js v20.20.2');
  });

  it('prints no control sequence a server sends, in the table or in JSON, and keeps the JSON values faithful', async () => {
    const file = write('hostile.json', {
      escapes: { command: process.execPath, args: [HOSTILE, '--mode', 'escapes'] },
      'escapes-exit': { command: process.execPath, args: [HOSTILE, '--mode', 'escapes-exit'] },
    });
    const table = await runCli(['check', '--config', file, '--timeout-ms', '5000']);
    assert.equal(table.code, 1);
    for (const [where, text] of [
      ['stdout', table.stdout],
      ['stderr', table.stderr],
    ])
      assert.doesNotMatch(text, CONTROL, `${where}: ${JSON.stringify(text)}`);
    assert.match(table.stdout, /^escapes\s+up\b.*evil.*name/m);
    assert.doesNotMatch(table.stdout, /pwned-title/, 'the window title string is dropped with its sequence');
    assert.match(table.stdout, /stderr: boom.* failed/);

    const json = await runCli(['check', '--config', file, '--json', '--timeout-ms', '5000']);
    assert.doesNotMatch(json.stdout, CONTROL);
    const doc = JSON.parse(json.stdout) as {
      servers: Array<{ name: string; serverInfo: { name: string } | null; stderrTail: string | null }>;
    };
    const byName = new Map(doc.servers.map((server) => [server.name, server]));
    assert.ok(byName.get('escapes')?.serverInfo?.name.includes('\x1b]0;pwned-title\x07\x9b31m'), 'JSON carries the value, escaped');
    assert.ok(byName.get('escapes-exit')?.stderrTail?.includes('\x1b[2J'));
  });

  for (const json of [true, false]) {
    it(`Ctrl-C during check${json ? ' --json' : ''}: the partial result marked interrupted, exit 130, no child left`, async () => {
      const pidFile = path.join(dir, `slow-${json}.pid`);
      const file = write(`slow-${json}.json`, { slow: { type: 'stdio', ...faultStdio('hang-start', ['--pidfile', pidFile]) } });
      let serverPid = 0;
      const run = await runCli(['check', '--config', file, '--connect-timeout-ms', '60000', ...(json ? ['--json'] : [])], (child) => {
        void waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim().length > 0, 30_000).then(() => {
          serverPid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
          child.kill('SIGINT');
        });
      });
      assert.ok(serverPid > 0, `the server started: ${run.stderr}`);
      assert.equal(run.code, 130, `exit code; stderr: ${run.stderr}`);
      assert.doesNotMatch(run.stdout, /No MCP servers found/);
      if (json) {
        const doc = JSON.parse(run.stdout) as { interrupted?: boolean; servers: Array<{ name: string; state: string }> };
        assert.equal(doc.interrupted, true);
        assert.deepEqual(
          doc.servers.map((server) => [server.name, server.state]),
          [['slow', 'starting']],
        );
      } else {
        assert.match(run.stdout, /^slow\s+starting\b/m);
        assert.match(run.stdout, /interrupted: partial result, 0\/1 healthy so far/);
      }
      assert.ok(await waitUntil(() => !isAlive(serverPid), 5_000), `server ${serverPid} outlived the CLI`);
    });
  }

  it('a second Ctrl-C while a stubborn server is being closed does not orphan it', async () => {
    const pidFile = path.join(dir, 'stubborn.pid');
    const file = write('stubborn.json', {
      stubborn: { type: 'stdio', ...faultStdio('hang-start,ignore-sigterm', ['--pidfile', pidFile]) },
    });
    let serverPid = 0;
    const run = await runCli(['check', '--config', file, '--json', '--connect-timeout-ms', '60000'], (child) => {
      void waitUntil(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim().length > 0, 30_000).then(() => {
        serverPid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
        child.kill('SIGINT');
        // The partial result is printed before the close starts; the close then waits out SIGTERM for 2 s.
        child.stdout?.once('data', () => child.kill('SIGINT'));
      });
    });
    assert.ok(serverPid > 0, `the server started: ${run.stderr}`);
    assert.equal(run.code, 130, `exit code ${run.code}, signal ${run.signal}; stderr: ${run.stderr}`);
    assert.equal((JSON.parse(run.stdout) as { interrupted?: boolean }).interrupted, true);
    assert.ok(await waitUntil(() => !isAlive(serverPid), 5_000), `server ${serverPid} outlived the CLI`);
  });

  it('a --config file that does not exist is a usage error naming it', async () => {
    const missing = path.join(dir, 'no-such-mcp.json');
    for (const command of ['list', 'check']) {
      const run = await runCli([command, '--config', missing]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, new RegExp(`--config file does not exist: ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.equal(run.stdout, '');
    }
  });

  it('numbers past the bounds are usage errors, not a 1 ms timer loop', async () => {
    const run = await runCli(['watch', '--no-user', '--duration-ms', '3000000000']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--duration-ms must be at most 2147483647 \(got 3000000000\)/);
    const timeout = await runCli(['check', '--no-user', '--timeout-ms', '3000000000']);
    assert.equal(timeout.code, 2);
    assert.match(timeout.stderr, /--timeout-ms must be at most 600000/);
  });
});
