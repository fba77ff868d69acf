// The election by bind after a crash, many times, with real sockets and delays injected where another process's step
// can interleave: a leader that died holding the bind lock left it behind with its socket file, and three windows
// elect at once. Breaking the dead lock used to delete it by name, so a lock a live window had just taken could be
// deleted too; two windows then held the lock, each probed the dead socket, one bound, and the other removed that live
// socket as "stale" and bound its own: two leaders, one of them unreachable. Exactly one may win, and it must be the
// one a connecting window reaches.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { channelPath, connectChannel, listenChannel, type ChannelClient, type ChannelServer } from '../../../src/mcp/localChannel';
import { isAlive } from '../../helpers/processes';
import { sleep } from '../../helpers/wait';

const posix = process.platform !== 'win32';
const root = mkdtempSync(path.join(tmpdir(), 'mh-election-'));
after(() => rmSync(root, { recursive: true, force: true }));

const ROUNDS = 25;
const CONTENDERS = 3;

/** A socket file nobody listens on, as a SIGKILLed leader leaves it: a second name for a listener's inode, kept after it closes. */
async function staleSocket(at: string): Promise<void> {
  const seed = `${at}.seed`;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(seed, resolve));
  linkSync(seed, at);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const refused = await new Promise<string>((resolve) => {
    const socket = createConnection(at);
    socket.once('connect', () => resolve('connected'));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
  assert.equal(refused, 'ECONNREFUSED', 'the seed socket is stale');
}

function deadPid(): number {
  const exited = spawnSync(process.execPath, ['-e', '']);
  assert.ok(exited.pid && !isAlive(exited.pid));
  return exited.pid;
}

// Longer than a lock retry (25-50 ms), so a window that found the dead lock acts after another has taken a fresh one.
const lockJitter = () => sleep(Math.floor(Math.random() * 80));
const socketJitter = () => sleep(Math.floor(Math.random() * 40));

void describe('election by bind under injected delays', { skip: !posix && 'Unix sockets only' }, () => {
  void it(`a dead leader's lock and socket, ${CONTENDERS} windows at once, ${ROUNDS} rounds: exactly one leader, and it is reachable`, async () => {
    const dead = deadPid();
    for (let round = 0; round < ROUNDS; round++) {
      const dir = path.join(root, `r${round}`);
      mkdirSync(dir, { mode: 0o700 });
      const socket = channelPath('user-servers', dir);
      await staleSocket(socket);
      writeFileSync(`${socket}.lock`, String(dead), { mode: 0o600 });
      const results = await Promise.all(
        Array.from({ length: CONTENDERS }, (_, index) =>
          listenChannel(socket, {
            onConnect: (peer) => peer.send({ leader: index }),
            pauses: { afterStaleLockRead: lockJitter, beforeStaleSocketRemoval: socketJitter },
          }),
        ),
      );
      const bound = results.map((server, index) => (server ? index : -1)).filter((index) => index >= 0);
      try {
        assert.equal(bound.length, 1, `round ${round}: exactly one window binds (bound: ${bound.join(',')})`);
        let client: ChannelClient | undefined;
        const reached = await new Promise<unknown>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no hello from the leader')), 5_000);
          connectChannel(socket, {
            onMessage: (message) => {
              clearTimeout(timer);
              resolve(message.leader);
            },
          }).then((connected) => (client = connected), reject);
        });
        client?.dispose();
        assert.equal(reached, bound[0], `round ${round}: a connecting window reaches the one that leads`);
        assert.deepEqual(
          readdirSync(dir).filter((name) => name.includes('.lock')),
          [],
          `round ${round}: no lock left behind`,
        );
      } finally {
        await Promise.all(results.map((server: ChannelServer | undefined) => server?.dispose()));
      }
    }
  });
});
