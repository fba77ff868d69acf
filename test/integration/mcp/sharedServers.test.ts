// One copy per machine, with real processes: three "windows" (each its own Node process with a real registry and
// connector) share two user-level stdio servers over the local channel. Exactly two server processes run; when the
// leading window closes, or is killed outright, another takes over and still exactly two run.

import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ServerConfig } from '../../../src/core/model';
import { channelPath } from '../../../src/mcp/localChannel';
import { faultStdio } from '../../helpers/servers';
import { isAlive } from '../../helpers/processes';
import { waitUntil } from '../../helpers/wait';
import { counted, PEERS } from './support';

const posix = process.platform === 'linux';
const WINDOW = path.join(PEERS, 'shared-window.ts');
const HANDOVER_MS = 45_000;

interface Window {
  readonly child: ChildProcessWithoutNullStreams;
  role: string;
  lines: string[];
  stderr: string;
  exited: Promise<void>;
  send(line: string): void;
  list(): Promise<{ id: string; state: string; pid: number | null; elsewhere: string | null }[]>;
}

let root: string;
const windows: Window[] = [];
const counters: ReturnType<typeof counted>[] = [];

before(() => {
  root = mkdtempSync(path.join(tmpdir(), 'mh-shared-'));
});
afterEach(async () => {
  for (const window of windows.splice(0)) {
    if (window.child.exitCode === null && window.child.signalCode === null) {
      window.send('quit');
      if (!(await settles(window.exited, 10_000))) window.child.kill('SIGKILL');
    }
  }
  // Whatever a killed window left behind is ours to end: only pids our own servers recorded.
  for (const counter of counters.splice(0)) {
    for (const pid of counter.pids()) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    counter.dispose();
  }
});
after(() => rmSync(root, { recursive: true, force: true }));

function settles(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]).finally(() => clearTimeout(timer));
}

function userServer(name: string, launch: { command: string; args: string[] }): ServerConfig {
  const file = path.join(root, 'User', 'mcp.json');
  return {
    id: `${file}#${name}`,
    name,
    source: { file, line: 1, column: 1, format: 'vscode', scope: 'user' },
    transport: 'stdio',
    command: launch.command,
    args: launch.args,
  };
}

function openWindow(channel: string, servers: ServerConfig[]): Window {
  const child = spawn(process.execPath, ['--import', 'tsx', WINDOW, channel, JSON.stringify(servers)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const window: Window = {
    child,
    role: 'stopped',
    lines: [],
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
    send: (line) => {
      if (!child.stdin.destroyed) child.stdin.write(`${line}\n`);
    },
    list: async () => {
      const before = window.lines.length;
      window.send('list');
      assert.ok(await waitUntil(() => window.lines.slice(before).some((line) => line.startsWith('list ')), 5_000), 'window answers list');
      const line = window.lines.slice(before).find((l) => l.startsWith('list '))!;
      return JSON.parse(line.slice(5)) as Awaited<ReturnType<Window['list']>>;
    },
  };
  child.stderr.on('data', (chunk: Buffer) => (window.stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    window.lines.push(line);
    if (line.startsWith('role ')) window.role = line.slice(5);
  });
  windows.push(window);
  return window;
}

function liveServerPids(): number[] {
  return counters.flatMap((counter) => counter.pids()).filter(isAlive);
}

async function threeWindows(fault = 'none'): Promise<Window[]> {
  const channel = channelPath('user-servers', path.join(root, `run-${windows.length}-${Date.now()}`));
  const a = counted(faultStdio(fault));
  const b = counted(faultStdio(fault));
  counters.push(a, b);
  const servers = [userServer('alpha', a.launch), userServer('beta', b.launch)];
  const opened = [openWindow(channel, servers)];
  // The first window leads (it binds first); the others open while it runs.
  assert.ok(await waitUntil(() => opened[0]!.role === 'leader', 45_000), 'first window leads');
  opened.push(openWindow(channel, servers), openWindow(channel, servers));
  assert.ok(await waitUntil(() => opened.every((w) => w.role !== 'stopped'), 45_000), 'every window has a role');
  assert.ok(await waitUntil(() => liveServerPids().length === 2, 45_000), `two servers start (live: ${liveServerPids().join(',')})`);
  // Followers know the leader's children (their pids) once they mirror them up: only then is a crash recoverable.
  for (const follower of opened.slice(1)) {
    let list = await follower.list();
    await waitUntil(async () => (list = await follower.list()).every((s) => s.state === 'up' && s.pid !== null), 45_000, 100);
    assert.deepEqual(
      list.map((s) => s.state),
      ['up', 'up'],
      'the follower mirrors both servers up',
    );
  }
  return opened;
}

void describe('one copy per machine (shared user-level servers)', { skip: !posix && 'needs /proc (Linux)' }, () => {
  void it('three windows run exactly two server processes; followers show the leader status and forward actions', async () => {
    const [leader, ...followers] = await threeWindows();
    assert.deepEqual([leader!.role, ...followers.map((w) => w.role)], ['leader', 'follower', 'follower']);
    const leaderList = await leader!.list();
    for (const follower of followers) {
      let list = await follower.list();
      for (let i = 0; i < 50 && !list.every((s) => s.state === 'up'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        list = await follower.list();
      }
      assert.deepEqual(
        list.map((s) => s.state),
        ['up', 'up'],
        'the follower mirrors the leader: up',
      );
      assert.deepEqual(
        list.map((s) => s.elsewhere),
        ['another window', 'another window'],
      );
      assert.deepEqual(list.map((s) => s.pid).sort(), leaderList.map((s) => s.pid).sort(), "the leader's children");
    }
    const before = followers[0]!.lines.length;
    followers[0]!.send(`ping ${leaderList[0]!.id}`);
    assert.ok(await waitUntil(() => followers[0]!.lines.slice(before).some((l) => l.startsWith('ping ')), 10_000));
    const answer = followers[0]!.lines.slice(before).find((l) => l.startsWith('ping '))!;
    assert.equal((JSON.parse(answer.slice(5)) as { outcome: string }[])[0]?.outcome, 'ok', 'a forwarded ping is answered by the leader');
    assert.equal(liveServerPids().length, 2, 'still two: the forwarded ping started nothing');

    // Reconnect on a follower: the leader replaces its own child; the follower starts none.
    const beforePids = liveServerPids();
    const mark = followers[1]!.lines.length;
    followers[1]!.send(`reconnect ${leaderList[0]!.id}`);
    assert.ok(await waitUntil(() => followers[1]!.lines.slice(mark).includes('reconnected'), 20_000), 'the forwarded reconnect completes');
    assert.ok(
      await waitUntil(() => liveServerPids().length === 2 && !liveServerPids().includes(leaderList[0]!.pid!), 10_000),
      'the leader restarted that server',
    );
    assert.equal(
      counters.reduce((sum, counter) => sum + counter.spawns(), 0),
      3,
      'one new spawn in all, by the leader',
    );
    assert.ok(beforePids.includes(leaderList[1]!.pid!) && liveServerPids().includes(leaderList[1]!.pid!), 'the other server untouched');
    const leaderAfter = await leader!.list();
    assert.notEqual(leaderAfter[0]!.pid, leaderList[0]!.pid, "the leader's new child");
  });

  void it('the leading window closes: a follower takes over, still exactly two server processes', async () => {
    const [leader, ...followers] = await threeWindows();
    const oldPids = liveServerPids();
    leader!.send('quit');
    assert.ok(await settles(leader!.exited, 10_000), 'the leader exits');
    assert.ok(
      oldPids.every((pid) => !isAlive(pid)),
      'the old leader closed its servers before releasing the channel',
    );
    assert.ok(await waitUntil(() => followers.some((w) => w.role === 'leader'), HANDOVER_MS), 'a follower leads');
    assert.equal(followers.filter((w) => w.role === 'leader').length, 1, 'exactly one new leader');
    assert.ok(await waitUntil(() => liveServerPids().length === 2, HANDOVER_MS), 'the new leader started both');
    // Give a would-be duplicate a moment to show up, then count again (bounded: one extra second).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(liveServerPids().length, 2);
    const remaining = followers.find((w) => w.role === 'follower');
    assert.ok(remaining, 'the other window follows the new leader');
  });

  void it('the leading window is killed (SIGKILL): its orphaned servers are ended, still exactly two run', async () => {
    // Stubborn servers: they outlive their stdin and ignore SIGTERM, as some real ones do.
    const [leader, ...followers] = await threeWindows('ignore-sigterm');
    const oldPids = liveServerPids();
    leader!.child.kill('SIGKILL');
    await leader!.exited;
    // The servers were spawned in their own process group: a SIGKILLed parent does not take them along.
    assert.ok(await waitUntil(() => followers.some((w) => w.role === 'leader'), HANDOVER_MS), 'a follower leads');
    assert.ok(
      await waitUntil(() => oldPids.every((pid) => !isAlive(pid)), HANDOVER_MS),
      `the new leader ended the orphans\n${followers.map((w) => w.stderr).join('\n')}`,
    );
    assert.ok(await waitUntil(() => liveServerPids().length === 2, HANDOVER_MS), `two run again (live: ${liveServerPids().join(',')})`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(liveServerPids().length, 2);
  });
});
