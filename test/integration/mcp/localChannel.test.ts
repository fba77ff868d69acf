// The local channel over real Unix sockets: election by bind, stale sockets of crashed processes, permissions, bad
// input, reconnects, and nothing left behind on dispose.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { waitFor } from '../../helpers/wait';
import {
  channelDirectory,
  channelPath,
  connectChannel,
  listenChannel,
  type ChannelClient,
  type ChannelCloseReason,
  type ChannelMessage,
  type ChannelServer,
} from '../../../src/mcp/localChannel';

const posix = process.platform !== 'win32';
let root: string;
let dir: string;
const open: { dispose(): unknown }[] = [];

before(() => {
  root = mkdtempSync(path.join(tmpdir(), 'mh-chan-'));
});
after(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.dispose();
});

let counter = 0;
function freshPath(): string {
  dir = path.join(root, `d${counter++}`);
  return channelPath('user-servers', dir);
}

async function listen(p: string, handlers: Parameters<typeof listenChannel>[1] = {}): Promise<ChannelServer> {
  const server = await listenChannel(p, handlers);
  assert.ok(server, 'expected to bind the channel');
  open.push(server);
  return server;
}

function inbox(): { messages: ChannelMessage[]; next(count?: number): Promise<ChannelMessage[]>; push(m: ChannelMessage): void } {
  const messages: ChannelMessage[] = [];
  const waiters: { count: number; resolve(): void }[] = [];
  return {
    messages,
    push(message) {
      messages.push(message);
      for (const waiter of waiters.splice(0)) {
        if (messages.length >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    },
    async next(count = 1) {
      if (messages.length < count) {
        await withTimeout(new Promise<void>((resolve) => waiters.push({ count, resolve })), `waiting for ${count} messages`);
      }
      return messages.slice(0, count);
    },
  };
}

function withTimeout<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out ${what}`)), ms);
    }),
  ]);
}

async function connect(
  p: string,
  handlers: Partial<Parameters<typeof connectChannel>[1]> = {},
): Promise<{ client: ChannelClient; box: ReturnType<typeof inbox>; closed: Promise<ChannelCloseReason> }> {
  const box = inbox();
  let closedWith!: (reason: ChannelCloseReason) => void;
  const closed = new Promise<ChannelCloseReason>((resolve) => (closedWith = resolve));
  const client = await connectChannel(p, { onMessage: (m) => box.push(m), onClose: closedWith, ...handlers });
  open.push(client);
  return { client, box, closed };
}

void describe('local channel', { skip: !posix && 'Unix sockets only' }, () => {
  void it('picks the runtime directory, else the cache directory', () => {
    assert.equal(channelDirectory({ XDG_RUNTIME_DIR: '/run/user/1000' }, '/home/u'), '/run/user/1000/mcp-health');
    assert.equal(channelDirectory({}, '/home/u'), '/home/u/.cache/mcp-health/run');
    assert.equal(channelDirectory({ XDG_RUNTIME_DIR: 'relative' }, '/home/u'), '/home/u/.cache/mcp-health/run');
    assert.throws(() => channelPath('../escape', '/tmp'));
  });

  void it('carries broadcasts, per-peer sends and client messages, one JSON object per line', async () => {
    const p = freshPath();
    const fromClients = inbox();
    const server = await listen(p, { onMessage: (peer, m) => fromClients.push({ ...m, from: peer.id }) });
    const a = await connect(p);
    const b = await connect(p);
    await waitFor('peers', () => server.peers.length === 2, 5000, 10);
    server.broadcast({ kind: 'snapshot', text: 'line\nbreak inside' });
    assert.deepEqual(await a.box.next(), [{ kind: 'snapshot', text: 'line\nbreak inside' }]);
    assert.deepEqual(await b.box.next(), [{ kind: 'snapshot', text: 'line\nbreak inside' }]);
    assert.ok(server.peers[0]!.send({ only: 'first' }));
    assert.deepEqual((await a.box.next(2))[1], { only: 'first' });
    assert.ok(a.client.send({ kind: 'command', n: 1 }));
    const [got] = await fromClients.next();
    assert.equal(got!.kind, 'command');
    assert.equal(b.box.messages.length, 1, 'a per-peer send reaches only that peer');
  });

  void it('elects by bind: a second listener on a live path gets undefined', async () => {
    const p = freshPath();
    await listen(p);
    assert.equal(await listenChannel(p), undefined);
  });

  void it('makes the directory 0700 (tightening a loose one) and the socket 0600', async () => {
    const p = freshPath();
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    await listen(p);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(p).mode & 0o777, 0o600);
  });

  void it('takes over the socket file of a process killed with SIGKILL', async () => {
    const p = freshPath();
    mkdirSync(dir, { mode: 0o700 });
    const script = `require('net').createServer().listen(${JSON.stringify(p)}, () => process.stdout.write('up\\n'))`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await withTimeout(new Promise((resolve) => child.stdout.once('data', resolve)), 'crash child up');
    assert.equal(await listenChannel(p), undefined, 'the live child holds it');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    assert.ok(existsSync(p), 'a SIGKILLed listener leaves its socket file behind');
    const server = await listen(p);
    const { box } = await connect(p);
    await waitFor('peer', () => server.peers.length === 1, 5000, 10);
    server.broadcast({ ok: true });
    assert.deepEqual(await box.next(), [{ ok: true }]);
  });

  void it('processes racing to take over a stale socket: exactly one binds, every round', async () => {
    const p = freshPath();
    mkdirSync(dir, { mode: 0o700 });
    for (let round = 0; round < 3; round++) {
      await leaveStaleSocket(p);
      const startAt = Date.now() + 1500;
      const racers = Array.from({ length: 6 }, () =>
        spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'peers', 'channel-racer.ts'), p, String(startAt)], {
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      try {
        const answers = await withTimeout(
          Promise.all(
            racers.map(
              (racer) =>
                new Promise<string>((resolve) => {
                  racer.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
                  racer.once('exit', () => resolve('exited'));
                }),
            ),
          ),
          'racers',
          30_000,
        );
        assert.deepEqual(answers.filter((a) => a === 'bound').length, 1, `round ${round}: ${answers.join(', ')}`);
        assert.deepEqual(
          answers.filter((a) => a !== 'bound' && a !== 'held'),
          [],
        );
      } finally {
        await Promise.all(
          racers.map(
            (racer) =>
              new Promise((resolve) => {
                if (racer.exitCode !== null || racer.signalCode !== null) return resolve(undefined);
                racer.once('exit', resolve);
                racer.stdin.end();
                setTimeout(() => racer.kill('SIGKILL'), 5000).unref();
              }),
          ),
        );
      }
    }
  });

  void it('removes a bind lock left by a dead process, and gives up (bounded) on one a live process holds', async () => {
    const p = freshPath();
    mkdirSync(dir, { mode: 0o700 });
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    writeFileSync(`${p}.lock`, String(child.pid));
    const server = await listen(p);
    assert.equal(existsSync(`${p}.lock`), false, 'the lock is released after the bind');
    await server.dispose();
    writeFileSync(`${p}.lock`, String(process.pid));
    await assert.rejects(listenChannel(p), /stayed locked/);
    rmSync(`${p}.lock`);
  });

  void it('replaces a leftover file that is not a socket at its private path', async () => {
    const p = freshPath();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(p, 'not a socket');
    // EADDRINUSE, the probe is refused (not a socket), unlink, bind: a plain file at our private path is ours to replace.
    const server = await listen(p);
    assert.equal(server.path, p);
  });

  void it('drops garbage lines and keeps the stream going', async () => {
    const p = freshPath();
    const got = inbox();
    const garbage: string[] = [];
    await listen(p, { onMessage: (_peer, m) => got.push(m), onGarbage: (_peer, preview) => garbage.push(preview) });
    const raw = createConnection(p);
    open.push({ dispose: () => raw.destroy() });
    await new Promise((resolve) => raw.once('connect', resolve));
    raw.write('not json\n[1,2]\n42\n\n{"half":');
    raw.write(' true}\n{"kind":"after"}\n');
    assert.deepEqual(await got.next(2), [{ half: true }, { kind: 'after' }]);
    assert.deepEqual(garbage, ['not json', '[1,2]', '42']);
  });

  void it('closes a peer that sends a line longer than the bound, and only that peer', async () => {
    const p = freshPath();
    const server = await listen(p, { maxLineBytes: 1024 });
    const good = await connect(p);
    const raw = createConnection(p);
    open.push({ dispose: () => raw.destroy() });
    await new Promise((resolve) => raw.once('connect', resolve));
    const rawClosed = new Promise((resolve) => raw.once('close', resolve));
    raw.on('error', () => undefined);
    raw.write(`{"big":"${'x'.repeat(4096)}`);
    await withTimeout(rawClosed, 'oversized peer closed');
    await waitFor('one peer left', () => server.peers.length === 1, 5000, 10);
    server.broadcast({ still: 'here' });
    assert.deepEqual(await good.box.next(), [{ still: 'here' }]);
  });

  void it('a client closes on an oversized line from the server', async () => {
    const p = freshPath();
    const server = await listen(p);
    const { closed } = await connect(p, { maxLineBytes: 100 });
    await waitFor('peer', () => server.peers.length === 1, 5000, 10);
    server.broadcast({ big: 'y'.repeat(500) });
    assert.equal(await withTimeout(closed, 'client close'), 'overflow');
  });

  void it('rejects a connect when nobody listens', async () => {
    const p = freshPath();
    await assert.rejects(connectChannel(p, { onMessage: () => undefined }));
  });

  void it('dispose removes the socket file, tells clients, and leaves no handle behind', async () => {
    const p = freshPath();
    const resourcesBefore = handles();
    const server = await listenChannel(p);
    assert.ok(server);
    const { closed, client } = await connect(p);
    await waitFor('peer', () => server.peers.length === 1, 5000, 10);
    await server.dispose();
    assert.equal(existsSync(p), false);
    assert.equal(await withTimeout(closed, 'client close'), 'closed');
    client.dispose();
    open.splice(0);
    await waitFor(`no socket or timer left (before: ${resourcesBefore}, now: ${handles()})`, () => noMoreThan(resourcesBefore), 5000, 10);
    // The path is free again.
    const again = await listen(p);
    assert.equal(again.path, p);
  });

  void it('reconnects to a new listener on the same path, or reports the close after the attempts', async () => {
    const p = freshPath();
    const first = await listenChannel(p);
    assert.ok(first);
    let reconnected = 0;
    const { box, client, closed } = await connect(p, { reconnect: { attempts: 20, delayMs: 50 }, onReconnect: () => reconnected++ });
    await first.dispose();
    const second = await listen(p);
    await waitFor('reconnected', () => reconnected === 1 && second.peers.length === 1, 5000, 10);
    second.broadcast({ from: 'second' });
    assert.deepEqual(await box.next(), [{ from: 'second' }]);
    assert.ok(client.send({ hello: 1 }));
    await second.dispose();
    // A peer torn down with our hello unread may answer with a reset: either way the close is reported once.
    assert.ok(['closed', 'error'].includes(await withTimeout(closed, 'close after attempts', 10_000)));
  });

  void it('a client disposed while waiting to reconnect leaves no timer', async () => {
    const p = freshPath();
    const resourcesBefore = handles();
    const server = await listenChannel(p);
    assert.ok(server);
    let closes = 0;
    const client = await connectChannel(p, {
      onMessage: () => undefined,
      onClose: () => closes++,
      reconnect: { attempts: 5, delayMs: 60_000 },
    });
    await server.dispose();
    await waitFor('reconnect timer armed', () => process.getActiveResourcesInfo().includes('Timeout'), 5000, 10);
    client.dispose();
    await waitFor('the reconnect timer and socket gone', () => noMoreThan(resourcesBefore), 5000, 10);
    assert.equal(closes, 0);
  });

  void it('a probe of a live but plain Unix server counts as held', async () => {
    const p = freshPath();
    mkdirSync(dir, { mode: 0o700 });
    const other = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => other.listen(p, resolve));
    open.push({ dispose: () => new Promise((resolve) => other.close(resolve)) });
    assert.equal(await listenChannel(p), undefined);
  });
});

/** A socket file whose owner was SIGKILLed: what a crashed leader leaves behind. */
async function leaveStaleSocket(p: string): Promise<void> {
  const script = `require('net').createServer().listen(${JSON.stringify(p)}, () => process.stdout.write('up\\n'))`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await withTimeout(new Promise((resolve) => child.stdout.once('data', resolve)), 'stale child up');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  assert.ok(existsSync(p));
}

/** Sockets, listeners and timers this process holds (the kinds a channel could leak). */
function handles(): string {
  return process
    .getActiveResourcesInfo()
    .filter((r) => r === 'PipeWrap' || r === 'PipeServerWrap' || r === 'Timeout')
    .sort()
    .join(',');
}

/** No kind of handle more numerous than before (earlier tests' sockets may still be closing in `before`). */
function noMoreThan(before: string): boolean {
  const count = (list: string, kind: string): number => list.split(',').filter((r) => r === kind).length;
  const now = handles();
  return ['PipeWrap', 'PipeServerWrap', 'Timeout'].every((kind) => count(now, kind) <= count(before, kind));
}
