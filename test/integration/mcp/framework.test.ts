// A real MCP server built on a common framework (fastmcp, devDependency), not the SDK's reference server: the connector
// and the bundled `mcp-health check` must show it up, as the clients its users run do.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createNodeConnector } from '../../../src/mcp';
import { runCli } from '../../helpers/cli';
import { httpServer } from './support';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/servers/fastmcp-server.mjs');

function startFastMcp(): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE, '--max-lifetime-ms', '120000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /LISTENING (\d+)/.exec(out);
      if (match) resolve({ child, url: `http://127.0.0.1:${match[1]}/mcp` });
    });
    child.on('exit', (code) => reject(new Error(`fastmcp fixture exited (${code}) before listening: ${err}`)));
  });
}

void describe('a server built on fastmcp', () => {
  let server: { child: ChildProcess; url: string };
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-fastmcp-'));
  before(async () => {
    server = await startFastMcp();
  });
  after(() => {
    if (server?.child.exitCode === null) server.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  void it('is up through the connector: handshake era, pings answered', async () => {
    const connector = createNodeConnector();
    const connection = await connector.connect(httpServer('fastmcp', server.url), { timeoutMs: 15_000 });
    try {
      assert.equal(connection.era, 'handshake');
      assert.equal(connection.serverInfo?.name, 'fastmcp-fixture');
      for (let round = 0; round < 3; round++) {
        const result = await connection.probe(5000);
        assert.equal(result.outcome, 'ok', result.detail);
      }
      assert.equal((await connection.probe(5000, 'tools/list')).outcome, 'ok');
    } finally {
      await connection.close();
      connector.dispose?.();
    }
  });

  void it('is up in `mcp-health check`', async () => {
    const config = path.join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ servers: { fastmcp: { type: 'http', url: server.url } } }));
    const { code, stdout } = await runCli(['check', '--config', config, '--json']);
    assert.equal(code, 0, stdout);
    const report = JSON.parse(stdout) as { servers: Array<{ name: string; state: string }> };
    assert.deepEqual(
      report.servers.map((entry) => [entry.name, entry.state]),
      [['fastmcp', 'up']],
    );
  });
});
