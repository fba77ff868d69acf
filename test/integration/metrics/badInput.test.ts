// `mcp-health watch --metrics` given a port it cannot have, an address that is not this machine's, or scraped while
// it shuts down: a clear error or a clean answer, never a crash or a hang.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { createServer, type Server } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../helpers/cli';
import { everythingStdio, freePort } from '../../helpers/servers';
import { startWatch } from './watchProcess';

const RUN_LIMIT_MS = 30_000;

/** One GET; resolves with the status, or with the socket error's code when the connection is refused or cut. */
function scrape(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false, timeout: 10_000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('mcp-health watch --metrics on bad input', () => {
  let dir: string;
  let config: string;
  let holder: Server;
  let heldPort: number;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-metrics-bad-'));
    const up = everythingStdio();
    config = path.join(dir, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ servers: { up: { type: 'stdio', command: up.command, args: up.args } } }));
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    heldPort = (holder.address() as { port: number }).port;
  });

  after(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a port already in use: exit 2 with a clear message, no server started', async () => {
    const run = await runCli(['watch', '--config', config, '--metrics', `127.0.0.1:${heldPort}`, '--json']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`cannot serve metrics on 127\\.0\\.0\\.1:${heldPort}: the port is already in use`));
    assert.doesNotMatch(run.stderr, /unexpected failure|at .*\.js:\d+/);
    assert.doesNotMatch(run.stdout, /"type":"probe"/, 'no server was probed');
  });

  it('an address that is not this machine: exit 2', async () => {
    // 192.0.2.0/24 is TEST-NET-1, never assigned to a host.
    const run = await runCli(['watch', '--config', config, '--metrics', '192.0.2.1:9464']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /cannot serve metrics on 192\.0\.2\.1:9464: that address does not belong to this machine/);
  });

  it('a host name that does not resolve: exit 2', async () => {
    const run = await runCli(['watch', '--config', config, '--metrics', 'no-such-host.invalid:9464']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /cannot serve metrics on no-such-host\.invalid:9464: the host name does not resolve/);
  });

  it('malformed values and --metrics outside watch are usage errors', async () => {
    for (const [args, message] of [
      [['watch', '--metrics', 'localhost'], /--metrics: expected HOST:PORT/],
      [['watch', '--metrics', '127.0.0.1:70000'], /--metrics: port must be between 0 and 65535/],
      [['check', '--metrics', '127.0.0.1:9464'], /--metrics applies to watch only/],
    ] as const) {
      const run = await runCli([...args, '--config', config]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
  });

  it('/healthz answers, unknown paths get 404, other methods 405', async () => {
    const watch = await startWatch(['--config', config, '--metrics', `127.0.0.1:${await freePort()}`, '--json']);
    try {
      const base = watch.metricsUrl.replace(/\/metrics$/, '');
      assert.equal(await scrape(`${base}/healthz`), 200);
      assert.equal(await scrape(`${base}/nothing`), 404);
      const post = await fetch(watch.metricsUrl, { method: 'POST' });
      assert.equal(post.status, 405);
      const text = await fetch(watch.metricsUrl);
      assert.match(text.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const openMetrics = await fetch(watch.metricsUrl, { headers: { Accept: 'application/openmetrics-text; version=1.0.0' } });
      assert.match(openMetrics.headers.get('content-type') ?? '', /^application\/openmetrics-text/);
      assert.match(await openMetrics.text(), /# EOF\n$/);
    } finally {
      await watch.stop();
    }
  });

  it('scrapes during shutdown get 200, 503 or a refused connection, and the process exits by itself', async () => {
    const watch = await startWatch(['--config', config, '--metrics', `127.0.0.1:${await freePort()}`, '--json']);
    const answers: Array<number | string> = [];
    let stopping = false;
    // Bounded: at most 400 scrapes, and none after the process is gone.
    const scraper = (async () => {
      for (let i = 0; i < 400 && watch.child.exitCode === null; i++) {
        answers.push(await scrape(watch.metricsUrl));
        if (i === 20) stopping = watch.child.kill('SIGTERM');
      }
    })();
    const exit = await Promise.race([
      watch.exited,
      new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), RUN_LIMIT_MS).unref()),
    ]);
    await scraper;
    if (exit === 'hung') await watch.stop(0);
    assert.ok(stopping, 'SIGTERM was sent while scraping');
    assert.notEqual(exit, 'hung', 'watch exited after SIGTERM');
    assert.ok(exit !== 'hung' && (exit.code === 0 || exit.code === 1), `clean exit, got ${JSON.stringify(exit)}`);
    const unexpected = answers.filter((answer) => ![200, 503, 'ECONNREFUSED', 'ECONNRESET'].includes(answer));
    assert.deepEqual(unexpected, [], `answers: ${JSON.stringify(answers)}`);
    assert.doesNotMatch(watch.stderr(), /unexpected failure|Error:/);
  });
});
