// A running guard publishes its status on a 0600 socket of the same user, and `mcp-health check` shows a config
// entry that runs through the guard as guarded, from that status, without starting a copy of the server.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { readGuardStatuses } from '../../../src/guard/statusChannel';
import { faultStdio } from '../../helpers/servers';
import { CLI, isAlive, waitUntilDead } from './support';

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'guard-status-'));
after(() => rmSync(dir, { recursive: true, force: true }));

void describe('guard status channel', () => {
  void it('publishes state, upstream pid, restarts and request counts; check shows the entry as guarded and starts nothing', async () => {
    const runtime = path.join(dir, 'runtime');
    const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
    const server = faultStdio('none');
    const guard = spawn(process.execPath, [CLI, 'guard', '--name', 'watched', '--', server.command, ...server.args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    let stderr = '';
    guard.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      guard.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
      );
      guard.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
      let out = '';
      guard.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      while (!out.includes('"id":2')) await new Promise((resolve) => setTimeout(resolve, 20));

      const socketDir = path.join(runtime, 'mcp-health');
      const socket = readdirSync(socketDir).find((entry) => entry === `guard-${guard.pid}.sock`);
      assert.ok(socket, `guard-${guard.pid}.sock in ${socketDir}`);
      assert.equal(statSync(path.join(socketDir, socket)).mode & 0o777, 0o600);
      assert.equal(statSync(socketDir).mode & 0o777, 0o700);

      const statuses = await readGuardStatuses(2000, socketDir);
      const mine = statuses.find((status) => status.guardPid === guard.pid);
      assert.ok(mine);
      assert.equal(mine.name, 'watched');
      assert.equal(mine.state, 'ready');
      assert.equal(mine.era, 'handshake');
      assert.equal(mine.restarts, 0);
      assert.equal(mine.methods['tools/list']?.count, 1);
      assert.ok(mine.upstreamPid && isAlive(mine.upstreamPid));

      // The entry runs through the guard; a copy of it would be a second server process, so check must not start it.
      const config = path.join(dir, '.mcp.json');
      const marker = path.join(dir, 'started-a-copy');
      // The CLI as an install would name it (…/mcp-health/dist/cli.js), so that a wrongly started copy really runs.
      const installed = path.join(dir, 'mcp-health', 'dist');
      mkdirSync(installed, { recursive: true });
      symlinkSync(CLI, path.join(installed, 'cli.js'));
      const copy = [
        path.join(installed, 'cli.js'),
        'guard',
        '--name',
        'watched',
        '--',
        process.execPath,
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`,
      ];
      writeFileSync(config, JSON.stringify({ mcpServers: { watched: { command: process.execPath, args: copy } } }));
      const checked = await run(process.execPath, [CLI, 'check', '--config', config], { env }).catch((error: { stdout: string }) => error);
      assert.match(
        checked.stdout,
        /watched {2}guarded ready \(guard pid \d+, upstream pid \d+, handshake, restarts 0, 2 requests, 0 errors\)/,
      );
      assert.throws(() => statSync(marker), 'no copy of the guarded server was started');
    } finally {
      guard.stdin.end();
      await new Promise((resolve) => guard.once('exit', resolve));
      const pid = Number(/upstream started \(pid (\d+)/.exec(stderr)?.[1]);
      if (pid) await waitUntilDead(pid);
    }
  });
});
