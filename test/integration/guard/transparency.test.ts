// The guard forwards bytes, not re-serialised JSON: what the client writes is what the upstream reads and the other
// way round, in order, for floods of odd-looking messages and for one 50 MB message.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { FIXTURES } from '../../helpers/servers';
import { waitFor } from '../../helpers/wait';
import { CLI, waitUntilDead } from './support';

const dir = mkdtempSync(path.join(tmpdir(), 'guard-transparency-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** 1000 messages in every shape JSON allows and a re-serialiser would normalise: spacing, escapes, key order, ids. */
function oddMessages(count: number, tag: string): Buffer[] {
  const lines: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const variants = [
      `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"n":${i}}}}`,
      `{ "method" : "notifications/progress" , "jsonrpc":"2.0", "params":{"progressToken":"${tag}${i}","progress":${i}.50} }`,
      `{"id":"${tag}-${i}","jsonrpc":"2.0","method":"x/\\u00e9t\\u00e9","params":{"text":"caf\u00e9 \u{1F600} \\n \\"q\\"","big":1e2,"neg":-0}}`,
      `{"jsonrpc":"2.0","id":${i}.0,"method":"resources/read","params":{"uri":"file:///a b","pad":"${' '.repeat(i % 7)}"}}\r`,
    ];
    lines.push(Buffer.from(`${variants[i % variants.length]!}\n`, 'utf8'));
  }
  return lines;
}

function startGuard(record: string): { guard: ChildProcess; stdout: Buffer[]; stderr: () => string } {
  const guard = spawn(
    process.execPath,
    [CLI, 'guard', '--', process.execPath, path.join(FIXTURES, 'recorder-server.mjs'), '--record', record],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const stdout: Buffer[] = [];
  let stderr = '';
  guard.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  guard.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { guard, stdout, stderr: () => stderr };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

async function stop(guard: ChildProcess, stderr: () => string): Promise<void> {
  guard.stdin!.end();
  const code = await new Promise<number | null>((resolve) => guard.once('exit', (exitCode) => resolve(exitCode)));
  assert.equal(code, 0, stderr());
  const pid = Number(/upstream started \(pid (\d+)/.exec(stderr())?.[1]);
  await waitUntilDead(pid);
}

void describe('guard transparency', () => {
  void it('passes 1000 messages each way unchanged, in order, byte for byte', async () => {
    const record = path.join(dir, 'flood.in');
    const emit = path.join(dir, 'flood.out');
    const { guard, stdout, stderr } = startGuard(record);
    const toUpstream = oddMessages(1000, 'c');
    for (const message of toUpstream) guard.stdin!.write(message);
    const expectedIn = Buffer.concat(toUpstream);
    await waitFor('the upstream to record 1000 messages', () => sizeOf(record) >= expectedIn.length, 60_000, 20);
    assert.ok(readFileSync(record).equals(expectedIn), 'the upstream read exactly the bytes the client wrote');

    const toClient = Buffer.concat(oddMessages(1000, 's'));
    writeFileSync(emit, toClient);
    const command = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'emit', params: { file: emit } })}\n`);
    guard.stdin!.write(command);
    await waitFor('the client to receive 1000 messages', () => Buffer.concat(stdout).length >= toClient.length, 60_000, 20);
    assert.ok(Buffer.concat(stdout).equals(toClient), 'the client read exactly the bytes the upstream wrote, and nothing else');
    await stop(guard, stderr);
  });

  void it('passes a 50 MB message each way unchanged', async () => {
    const record = path.join(dir, 'big.in');
    const emit = path.join(dir, 'big.out');
    const { guard, stdout, stderr } = startGuard(record);
    const blob = 'x'.repeat(50 * 1024 * 1024);
    const big = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{"data":"${blob}"}}}\n`);
    const small = Buffer.from('{"jsonrpc":"2.0","method":"notifications/after"}\n');
    guard.stdin!.write(big);
    guard.stdin!.write(small);
    const expectedIn = Buffer.concat([big, small]);
    await waitFor('the upstream to record the 50 MB message', () => sizeOf(record) >= expectedIn.length, 60_000, 20);
    assert.ok(readFileSync(record).equals(expectedIn));

    const answer = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${blob}"}]}}\n`);
    writeFileSync(emit, answer);
    guard.stdin!.write(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'emit', params: { file: emit } })}\n`));
    await waitFor('the client to receive 50 MB', () => stdout.reduce((sum, chunk) => sum + chunk.length, 0) >= answer.length, 60_000, 20);
    assert.ok(Buffer.concat(stdout).equals(answer));
    await stop(guard, stderr);
  });
});
