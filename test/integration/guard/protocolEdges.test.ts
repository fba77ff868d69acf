// The guard at the edges of the protocol, as a client meets them through the real guard process: input closed right
// after the last request, JSON-RPC batches, and request ids that look like the guard's own. Each case is compared with
// what the same server answers when the client talks to it directly.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { everythingStdio, FIXTURES, type StdioLaunch } from '../../helpers/servers';
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
 * the process exits. With `closeWhen`, stdin stays open until the messages read so far satisfy it.
 */
function pipeThrough(launch: StdioLaunch, lines: readonly string[], closeWhen?: (received: unknown[]) => boolean): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, launch.args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, MCP_HEALTH_GUARD_DEBUG: '1' },
    });
    let stdout = '';
    let stderr = '';
    const parse = (text: string) =>
      text
        .split('\n')
        .filter((one) => one.trim() !== '')
        .map((one) => JSON.parse(one) as unknown);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (closeWhen && stdout.endsWith('\n') && closeWhen(parse(stdout))) child.stdin.end();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, lines: parse(stdout), stderr });
    });
    const input = lines.map((text) => `${text}\n`).join('');
    if (closeWhen) child.stdin.write(input);
    else child.stdin.end(input);
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

const batchServer: StdioLaunch = { command: process.execPath, args: [path.join(FIXTURES, 'batch-server.mjs')] };

/** Every answer in what was read: alone, or inside a batch. */
function answerCount(received: unknown[]): number {
  return received
    .flatMap((message) => (Array.isArray(message) ? message : [message]))
    .filter((message) => (message as { id?: unknown }).id !== undefined).length;
}

void describe('guard protocol edges: JSON-RPC batches', () => {
  void it('forwards a batch to the server and its batch answer back, as the direct server gives it', async () => {
    const lines = [
      INITIALIZE.replace('2025-06-18', '2025-03-26'),
      INITIALIZED,
      JSON.stringify([
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { message: 'in a batch' } } },
        { jsonrpc: '2.0', id: 'mcp-health-guard:probe-1', method: 'ping' },
      ]),
    ];
    // The client's input stays open until the answers are in: this is about batches, not about a closed input.
    const allAnswered = (received: unknown[]) => answerCount(received) >= 4;
    const direct = await pipeThrough(batchServer, lines, allAnswered);
    const viaGuard = await pipeThrough(guardedBy('bundle', batchServer), lines, allAnswered);
    assert.equal(direct.lines.length, 2, 'the initialize answer, then one batch answer');
    assert.ok(Array.isArray(direct.lines[1]));
    assert.deepEqual(viaGuard.lines, direct.lines, viaGuard.stderr);
    assert.doesNotMatch(viaGuard.stderr, /not a JSON-RPC message/);
    assert.equal(viaGuard.code, 0, viaGuard.stderr);
    await upstreamsGone(viaGuard.stderr);
  });
});

void describe('guard protocol edges: request ids that begin with the guard prefix', () => {
  void it("answers them like the direct server, whatever shape of the guard's own ids they copy", async () => {
    const lines = [
      INITIALIZE,
      INITIALIZED,
      JSON.stringify({ jsonrpc: '2.0', id: 'mcp-health-guard:probe-1', method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: 'mcp-health-guard:initialize-2-1', method: 'ping' }),
      JSON.stringify({ jsonrpc: '2.0', id: 'mcp-health-guard:~x', method: 'ping' }),
    ];
    const allAnswered = (received: unknown[]) => answerCount(received) >= 4;
    const direct = await pipeThrough(everythingStdio(), lines, allAnswered);
    const viaGuard = await pipeThrough(guardedBy('cli', everythingStdio()), lines, allAnswered);
    const want = answers(direct.lines);
    assert.deepEqual([...want.keys()], [1, 'mcp-health-guard:probe-1', 'mcp-health-guard:initialize-2-1', 'mcp-health-guard:~x']);
    assert.deepEqual(answers(viaGuard.lines), want, viaGuard.stderr);
    assert.equal(viaGuard.code, 0, viaGuard.stderr);
    await upstreamsGone(viaGuard.stderr);
  });
});
