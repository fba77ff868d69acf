// `mcp-health serve` as a user runs it (the bundled CLI), against real MCP servers on 127.0.0.1: the bound on probes
// at once answers 503 at once, secrets from the environment and files reach the server and nowhere else, the
// allow-list and the scheme check refuse targets, and the expected tool set fails a probe when it differs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../helpers/cli';
import { startFaultHttp, type RunningServer } from '../../helpers/servers';
import { waitFor } from '../../helpers/wait';
import { sampleValue, startServe, type ServeProcess } from './serveProcess';

const TOKEN = 'tok-9f8e7d6c5b4a-env-secret';
const FILE_SECRET = 'file-secret-0a1b2c3d4e5f';

/** In front of a real MCP server: 401 unless both secret headers arrive, otherwise every byte passed through. */
function authFront(backend: RunningServer): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.headers.authorization !== `Bearer ${TOKEN}` || request.headers['x-api-key'] !== FILE_SECRET) {
      response.writeHead(401, { 'Content-Type': 'text/plain' }).end('unauthorized');
      return;
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: backend.port, path: request.url, method: request.method, headers: request.headers },
      (reply) => {
        response.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}

describe('mcp-health serve', { timeout: 180_000 }, () => {
  let dir: string;
  let healthy: RunningServer;
  let hung: RunningServer;
  let front: Awaited<ReturnType<typeof authFront>>;
  let serve: ServeProcess;
  let toolsHash: string;
  const bodies: string[] = [];

  const inFlight = async () => sampleValue(await (await fetch(`${serve.base}/metrics`)).text(), 'mcp_health_serve_probes_in_flight');
  /** One probe at a time: with max_concurrent 1 the slot is held until the last probe's connection is closed. */
  const probe = async (target: string, module?: string) => {
    await waitFor('the probe slot to be free', async () => (await inFlight()) === 0);
    const response = await fetch(`${serve.base}/probe?target=${encodeURIComponent(target)}${module ? `&module=${module}` : ''}`);
    const body = await response.text();
    bodies.push(body);
    return { status: response.status, body };
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-serve-'));
    healthy = await startFaultHttp('http');
    hung = await startFaultHttp('http', 'hang-start');
    front = await authFront(healthy);
    // The tool set's hash as `check --save-baseline` records it: what a user copies into expected_tools_hash.
    const config = path.join(dir, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ servers: { healthy: { type: 'http', url: healthy.url } } }));
    const saved = await runCli(['check', '--config', config, '--save-baseline', path.join(dir, 'baseline.json')]);
    assert.equal(saved.code, 0, saved.stderr);
    toolsHash = (
      JSON.parse(fs.readFileSync(path.join(dir, 'baseline.json'), 'utf8')) as { servers: Record<string, { tools: { hash: string } }> }
    ).servers.healthy!.tools.hash;
    fs.writeFileSync(path.join(dir, 'api-key'), `${FILE_SECRET}\n`);
    fs.writeFileSync(
      path.join(dir, 'modules.yml'),
      [
        'max_concurrent: 1',
        'allow: [127.0.0.0/8, localhost]',
        'modules:',
        '  default:',
        '    timeout: 4s',
        '  secret:',
        '    timeout: 4s',
        '    headers:',
        '      Authorization: { env: PROBE_TOKEN, prefix: "Bearer " }',
        `      X-Api-Key: { file: ${path.join(dir, 'api-key')} }`,
        '  pinned:',
        `    expected_tools_hash: "${toolsHash}"`,
        '  drifted:',
        `    expected_tools_hash: "${'0'.repeat(64)}"`,
        '',
      ].join('\n'),
    );
    serve = await startServe(['--modules', path.join(dir, 'modules.yml')], { PROBE_TOKEN: TOKEN });
  });

  after(async () => {
    const exit = await serve?.stop();
    assert.equal(exit?.code, 0, `serve exited cleanly; output:\n${serve?.output()}`);
    await front?.close();
    await healthy?.stop();
    await hung?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a probe over max_concurrent is answered 503 while the first still runs, and counted as busy', async () => {
    const first = probe(hung.url);
    await waitFor('the hung probe to be in flight', async () => (await inFlight()) === 1);
    const second = await fetch(`${serve.base}/probe?target=${encodeURIComponent(healthy.url)}`);
    assert.equal(second.status, 503);
    assert.match(await second.text(), /max_concurrent/);
    const { status, body } = await first;
    assert.equal(status, 200);
    assert.equal(sampleValue(body, 'mcp_health_probe_success'), 0);
    assert.equal(sampleValue(body, 'mcp_health_probe_failure', 'cause="timeout"'), 1);
    const own = await waitFor('the slot to be free again', async () => {
      const text = await (await fetch(`${serve.base}/metrics`)).text();
      return sampleValue(text, 'mcp_health_serve_probes_in_flight') === 0 && text;
    });
    assert.equal(sampleValue(own, 'mcp_health_serve_rejected_total', 'reason="busy"'), 1);
    // The bound is on probes, not on answers held back: the next probe runs once the slot is free.
    assert.equal(sampleValue((await probe(healthy.url)).body, 'mcp_health_probe_success'), 1);
  });

  it('headers from the environment and a file reach the server, and appear in no answer, metric or output', async () => {
    const without = await probe(front.url);
    assert.equal(sampleValue(without.body, 'mcp_health_probe_success'), 0, 'the front refuses a probe without the secrets');
    assert.equal(sampleValue(without.body, 'mcp_health_probe_failure', 'cause="unauthorized"'), 1, without.body);
    const withSecrets = await probe(front.url, 'secret');
    assert.equal(sampleValue(withSecrets.body, 'mcp_health_probe_success'), 1, withSecrets.body);
    // A query string cannot add headers: only target and module are read.
    await waitFor('the probe slot to be free', async () => (await inFlight()) === 0);
    const smuggled = await fetch(
      `${serve.base}/probe?target=${encodeURIComponent(front.url)}&headers=Authorization%3A%20Bearer%20${TOKEN}&Authorization=Bearer%20${TOKEN}`,
    );
    const smuggledBody = await smuggled.text();
    bodies.push(smuggledBody);
    assert.equal(sampleValue(smuggledBody, 'mcp_health_probe_success'), 0);
    bodies.push(await (await fetch(`${serve.base}/metrics`)).text());
    bodies.push(
      await (await fetch(`${serve.base}/metrics`, { headers: { Accept: 'application/openmetrics-text; version=1.0.0' } })).text(),
    );
    for (const text of [...bodies, serve.output()]) {
      assert.ok(!text.includes(TOKEN), 'the env secret leaked');
      assert.ok(!text.includes(FILE_SECRET), 'the file secret leaked');
    }
  });

  it('refuses stdio and non-http targets, hosts off the allow-list, and unknown modules before probing', async () => {
    for (const target of ['npx -y @modelcontextprotocol/server-everything', 'stdio:node server.js', 'file:///etc/passwd']) {
      const { status, body } = await probe(target);
      assert.equal(status, 400, target);
      assert.match(body, /only http:\/\/ and https:\/\//);
    }
    const off = await probe('http://192.0.2.1:8080/mcp');
    assert.equal(off.status, 403);
    assert.equal((await probe(healthy.url, 'nope')).status, 400);
    const own = await (await fetch(`${serve.base}/metrics`)).text();
    assert.equal(sampleValue(own, 'mcp_health_serve_rejected_total', 'reason="forbidden"'), 1);
  });

  it('an expected tool set passes when it matches and fails the probe when it differs', async () => {
    const pinned = await probe(healthy.url, 'pinned');
    assert.equal(sampleValue(pinned.body, 'mcp_health_probe_success'), 1, pinned.body);
    assert.equal(sampleValue(pinned.body, 'mcp_health_probe_tools_hash_match'), 1);
    assert.ok((sampleValue(pinned.body, 'mcp_health_probe_tools') ?? 0) >= 1);
    const drifted = await probe(healthy.url, 'drifted');
    assert.equal(sampleValue(drifted.body, 'mcp_health_probe_success'), 0);
    assert.equal(sampleValue(drifted.body, 'mcp_health_probe_tools_hash_match'), 0);
    assert.equal(sampleValue(drifted.body, 'mcp_health_probe_failure', 'cause="tools-hash-mismatch"'), 1);
  });

  it('a healthy probe reports era, protocol version and phases with bounded labels only', async () => {
    const { body } = await probe(healthy.url);
    assert.match(body, /^mcp_health_probe_info\{era="handshake",protocol_version="\d{4}-\d{2}-\d{2}"\} 1$/m);
    assert.ok((sampleValue(body, 'mcp_health_probe_phase_duration_seconds', 'phase="connect"') ?? -1) >= 0);
    const labels = new Set([...body.matchAll(/\{([^}]*)\}/g)].flatMap((match) => match[1]!.split(',').map((pair) => pair.split('=')[0])));
    assert.deepEqual(
      [...labels].filter((name) => !['era', 'protocol_version', 'phase', 'cause'].includes(name!)),
      [],
    );
  });
});
