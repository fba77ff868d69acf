// The mcp-health CLI end to end: the bundled dist/cli.js against real servers on 127.0.0.1.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  everythingStdio,
  faultStdio,
  modernStdio,
  startEverythingHttp,
  startFaultHttp,
  startModernHttp,
  startSilentTcp,
  type RunningServer,
} from '../../helpers/servers';
import { runCli } from '../../helpers/cli';

function writeConfig(dir: string, servers: Record<string, unknown>): string {
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ servers }, null, 2));
  return file;
}

interface CheckDoc {
  servers: Array<{
    name: string;
    state: string;
    era: string | null;
    transport: string;
    rttMs: number | null;
    source: { file: string; line: number };
    protocolVersion: string | null;
    serverInfo: { name: string } | null;
    error: { kind: string; message: string } | null;
    exitCode: number | null;
  }>;
  diagnostics: Array<{ file: string; line: number; column: number; message: string }>;
}

describe('mcp-health CLI against real servers', () => {
  let dir: string;
  const running: RunningServer[] = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-cli-'));
  });
  after(async () => {
    await Promise.all(running.map((server) => server.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('check --json reports every transport, era and fault, each hung server ended by its own timeout', async () => {
    const http = await startEverythingHttp('streamableHttp');
    const sse = await startEverythingHttp('sse');
    const modernHttp = await startModernHttp();
    const unauthorized = await startFaultHttp('http', 'status:401');
    const silent = await startSilentTcp();
    running.push(http, sse, modernHttp, unauthorized, silent);
    const file = writeConfig(dir, {
      'everything-stdio': { type: 'stdio', ...everythingStdio() },
      'everything-http': { type: 'http', url: http.url },
      'everything-sse': { type: 'sse', url: sse.url },
      'modern-stdio': { type: 'stdio', ...modernStdio() },
      'modern-http': { type: 'http', url: modernHttp.url },
      'hang-ping': { type: 'stdio', ...faultStdio('hang-ping') },
      'nonempty-pong': { type: 'stdio', ...faultStdio('nonempty-pong') },
      'error-pong': { type: 'stdio', ...faultStdio('error-pong') },
      exits: { type: 'stdio', ...faultStdio('exit:7') },
      unauthorized: { type: 'http', url: unauthorized.url },
      silent: { type: 'http', url: silent.url },
      'missing-command': { type: 'stdio', command: path.join(dir, 'no-such-binary') },
      'needs-token': { type: 'http', url: http.url, headers: { Authorization: 'Bearer ${input:token}' } },
    });
    const timeoutMs = 2000;
    // Thirteen servers start at once on a two-core machine: a cold server-everything can take seconds to answer.
    const connectTimeoutMs = 10_000;
    const run = await runCli([
      'check',
      '--config',
      file,
      '--json',
      '--timeout-ms',
      String(timeoutMs),
      '--connect-timeout-ms',
      String(connectTimeoutMs),
      '--startup-timeout-ms',
      String(connectTimeoutMs),
    ]);
    assert.equal(run.code, 1, run.stderr);
    const doc = JSON.parse(run.stdout) as CheckDoc;
    const byName = new Map(doc.servers.map((server) => [server.name, server]));
    const expect = (name: string, state: string, kind: string | null, era?: string | null) => {
      const server = byName.get(name);
      assert.ok(server, `${name} reported`);
      assert.equal(server.state, state, `${name}: ${JSON.stringify(server)}`);
      assert.equal(server.error?.kind ?? null, kind, `${name} error kind: ${JSON.stringify(server.error)}`);
      if (era !== undefined) assert.equal(server.era, era, `${name} era`);
      assert.equal(server.source.file, file);
      assert.ok(server.source.line > 1);
    };
    expect('everything-stdio', 'up', null, 'handshake');
    expect('everything-http', 'up', null, 'handshake');
    expect('everything-sse', 'up', null, 'handshake');
    expect('modern-stdio', 'up', null, 'modern');
    expect('modern-http', 'up', null, 'modern');
    expect('hang-ping', 'down', 'timeout');
    expect('nonempty-pong', 'suspect', 'protocol-violation');
    expect('error-pong', 'suspect', 'protocol-violation');
    expect('exits', 'down', 'exited');
    expect('unauthorized', 'auth-required', 'auth');
    expect('silent', 'down', 'timeout');
    expect('missing-command', 'down', 'unreachable');
    expect('needs-token', 'needs-input', 'input-required');
    for (const name of ['everything-stdio', 'everything-http', 'everything-sse', 'modern-stdio', 'modern-http']) {
      const server = byName.get(name)!;
      assert.equal(typeof server.rttMs, 'number', `${name} has an RTT`);
      assert.ok(server.protocolVersion, `${name} has a protocol version`);
      assert.ok(server.serverInfo?.name, `${name} has server info`);
    }
    assert.equal(byName.get('exits')!.exitCode, 7);
    // The hung servers ended by their own timeouts, told apart: the one that never answers a probe by the probe
    // timeout (never retried), the one that never answers at all by the connect timeout. How long the whole check
    // takes depends on the machine; that figure belongs to the benchmarks (bench: scale, connect all), not to a test.
    assert.equal(byName.get('hang-ping')!.error?.message, `no answer to ping within ${timeoutMs} ms`);
    // The connect deadline and the transport's own abort race at the same instant; either names the wait.
    assert.match(
      byName.get('silent')!.error?.message ?? '',
      new RegExp(
        `did not start within ${connectTimeoutMs / 1000} s|did not answer in time|No answer within ${connectTimeoutMs} ms while connecting`,
      ),
    );
  });

  it('check exits 0 when all selected servers are up, and redacts secrets in its table', async () => {
    const file = writeConfig(dir, {
      everything: { type: 'stdio', ...everythingStdio(), env: { API_TOKEN: 'sk-live-123456' } },
      broken: { type: 'stdio', ...faultStdio('exit:3') },
    });
    const run = await runCli(['check', '--config', file, '--server', 'everything']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /everything\s+up/);
    assert.doesNotMatch(run.stdout, /broken/);
    assert.doesNotMatch(run.stdout + run.stderr, /sk-live-123456/);
  });

  it('list shows servers with their source lines, and a broken file as a diagnostic without losing the others', async () => {
    const good = writeConfig(dir, { alpha: { command: 'node', args: ['x.js'] } });
    const broken = path.join(dir, 'broken.mcp.json');
    fs.writeFileSync(broken, '{\n  "mcpServers": {\n    "beta": { "command": 42 }\n    "gamma": {}\n}\n');
    const run = await runCli(['list', '--config', good, '--config', broken, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout) as CheckDoc;
    const alpha = doc.servers.find((server) => server.name === 'alpha');
    assert.ok(alpha);
    assert.equal(alpha.source.line, 3);
    assert.ok(doc.diagnostics.length > 0);
    for (const diagnostic of doc.diagnostics) {
      assert.equal(diagnostic.file, broken);
      assert.ok(diagnostic.line >= 1 && diagnostic.column >= 1);
    }
  });

  it('usage errors exit 2', async () => {
    assert.equal((await runCli(['frobnicate'])).code, 2);
    assert.equal((await runCli(['watch', '--interval-ms', '10'])).code, 2);
    assert.equal((await runCli(['check', '--config', path.join(dir, 'mcp.json'), '--server', 'nope'])).code, 2);
  });

  it('watch reports a killed stdio server as down with reason exited at once', async () => {
    const pidFile = path.join(dir, 'victim.pid');
    const file = writeConfig(dir, { victim: { type: 'stdio', ...faultStdio('none', ['--pidfile', pidFile]) } });
    let killedAt = 0;
    let downLine: Record<string, unknown> | undefined;
    const run = await runCli(['watch', '--config', file, '--json', '--interval-ms', '60000', '--duration-ms', '6000'], {
      onStdoutLine: (line) => {
        const event = JSON.parse(line) as Record<string, unknown>;
        if (event.type === 'state' && event.to === 'up' && !killedAt) {
          const pid = Number(fs.readFileSync(pidFile, 'utf8'));
          killedAt = performance.now();
          process.kill(pid, 'SIGKILL');
        }
        if (event.type === 'state' && event.to === 'down' && !downLine) {
          downLine = event;
        }
      },
    });
    assert.ok(killedAt > 0, `server came up: ${run.stdout}${run.stderr}`);
    assert.ok(downLine, `a down state was reported: ${run.stdout}`);
    assert.equal((downLine.error as { kind: string }).kind, 'exited');
    assert.match(String(downLine.reason), /exit|signal|SIGKILL/i);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // "At once": told by the exit itself, not by a probe (none is due within the 60 s interval). How fast that is
    // depends on the machine: a benchmark figure (bench: detection, stdio child exit), not a test.
    const down = lines.findIndex((event) => event.type === 'state' && event.to === 'down');
    assert.deepEqual(
      lines.slice(0, down).filter((event) => event.type === 'probe'),
      [],
      'no probe before the down',
    );
    assert.equal(lines.at(-1)!.type, 'summary');
  });
});
