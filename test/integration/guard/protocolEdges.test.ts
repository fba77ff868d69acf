// The guard at the edges of the protocol, as a client meets them through the real guard process: input closed right
// after the last request, JSON-RPC batches, and request ids that look like the guard's own. Each case is compared with
// what the same server answers when the client talks to it directly.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { everythingStdio, type StdioLaunch } from '../../helpers/servers';
import { CLI, waitUntilDead } from './support';

const GUARD_BUNDLE = path.join(path.dirname(CLI), 'guard.js');
/** Bounds a broken guard that never closes; a working one exits as soon as the answers are out. */
const RUN_LIMIT_MS = 60_000;

interface Run {
  readonly code: number | null;
  readonly lines: unknown[];
  readonly stderr: string;
}

/**
 * Runs `launch` the way `printf LINES | command` does: every line written and stdin closed at once, stdout read until
 * the process exits.
 */
function pipeThrough(launch: StdioLaunch, lines: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, MCP_HEALTH_GUARD_DEBUG: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      const parsed = stdout
        .split('\n')
        .filter((text) => text.trim() !== '')
        .map((text) => JSON.parse(text) as unknown);
      resolve({ code, lines: parsed, stderr });
    });
    child.stdin.end(lines.map((text) => `${text}\n`).join(''));
  });
}

function guardedBy(entry: 'cli' | 'bundle', server: StdioLaunch): StdioLaunch {
  const script = entry === 'cli' ? CLI : GUARD_BUNDLE;
  return { command: process.execPath, args: [script, 'guard', '--', server.command, ...server.args] };
}

/** The answers (messages with an id and no method), keyed by their id. */
function answers(lines: unknown[]): Map<unknown, unknown> {
  const byId = new Map<unknown, unknown>();
  for (const message of lines as Array<Record<string, unknown>>) {
    if (!Array.isArray(message) && message.id !== undefined && message.method === undefined) byId.set(message.id, message);
  }
  return byId;
}

async function upstreamsGone(stderr: string): Promise<void> {
  for (const match of stderr.matchAll(/upstream started \(pid (\d+)/g)) await waitUntilDead(Number(match[1]));
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'printf', version: '1' } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

void describe('guard protocol edges: the client closes its input at once', () => {
  for (const entry of ['cli', 'bundle'] as const) {
    void it(`answers initialize and tools/list like the direct server (${entry === 'cli' ? 'dist/cli.js' : 'dist/guard.js'})`, async () => {
      const lines = [INITIALIZE, INITIALIZED, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })];
      const direct = await pipeThrough(everythingStdio(), lines);
      const viaGuard = await pipeThrough(guardedBy(entry, everythingStdio()), lines);
      assert.equal(viaGuard.code, 0, viaGuard.stderr);
      const want = answers(direct.lines);
      assert.deepEqual([...want.keys()], [1, 2], 'the direct server answers both');
      assert.deepEqual(answers(viaGuard.lines), want, viaGuard.stderr);
      await upstreamsGone(viaGuard.stderr);
    });
  }
});

