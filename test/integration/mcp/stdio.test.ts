// The Node connector over stdio, against real child processes.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import type { ServerError } from '../../../src/core/model';
import { createNodeConnector } from '../../../src/mcp';
import { everythingStdio, faultStdio, modernStdio } from '../../helpers/servers';
import { isAlive } from '../../helpers/processes';
import { waitUntil } from '../../helpers/wait';
import { collectingLogger, connectError, counted, OpenConnections, peer, stdioServer } from './support';

const CONNECT_MS = 15_000;
const connections = new OpenConnections();
afterEach(() => connections.closeAll());

function nextClose(connection: { onClose(listener: (info: ServerError) => void): void }): Promise<{ info: ServerError; at: number }> {
  return new Promise((resolve) => connection.onClose((info) => resolve({ info, at: performance.now() })));
}

/** Polls /proc until the process is a zombie or reaped: the moment it is really dead. */
async function zombieSince(pid: number): Promise<number> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    let state: string | undefined;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    } catch {
      return performance.now();
    }
    if (state === 'Z' || state === 'X') return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`process ${pid} did not die within 10 s of SIGKILL`);
}

void describe('stdio: server-everything', () => {
  void it('connects on the handshake era and answers ping with an RTT', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('everything', everythingStdio()), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(connection.era, 'handshake');
    assert.match(connection.protocolVersion ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(connection.serverInfo?.name, 'mcp-servers/everything');
    assert.ok(typeof connection.pid === 'number' && isAlive(connection.pid));
    for (let i = 0; i < 3; i++) {
      const result = await connection.probe(2000);
      assert.equal(result.method, 'ping');
      assert.equal(result.outcome, 'ok', result.detail);
      assert.ok(typeof result.rttMs === 'number' && result.rttMs > 0 && result.rttMs < 2000);
      assert.ok(result.requestId !== undefined);
    }
    const fallback = await connection.probe(2000, 'tools/list');
    assert.equal(fallback.outcome, 'ok', fallback.detail);
  });

  void it('spawns the server once per connect, with and without an era hint', async () => {
    const withHint = counted(everythingStdio());
    const withoutHint = counted(everythingStdio());
    try {
      const connector = createNodeConnector();
      connections.add(await connector.connect(stdioServer('hinted', withHint.launch), { timeoutMs: CONNECT_MS, eraHint: 'handshake' }));
      connections.add(await connector.connect(stdioServer('unhinted', withoutHint.launch), { timeoutMs: CONNECT_MS }));
      assert.equal(withHint.spawns(), 1);
      assert.equal(withoutHint.spawns(), 1);
    } finally {
      withHint.dispose();
      withoutHint.dispose();
    }
  });

  void it('fires onActivity for inbound traffic', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('everything', everythingStdio()), { timeoutMs: CONNECT_MS, eraHint: 'handshake' }),
    );
    let activity = 0;
    connection.onActivity(() => activity++);
    await connection.probe(2000);
    await connection.probe(2000, 'tools/list');
    assert.ok(activity >= 2, `activity fired ${activity} times`);
  });
});

void describe('stdio: eras', () => {
  void it('finds the modern era and probes it with server/discover', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('modern', modernStdio()), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(connection.era, 'modern');
    assert.equal(connection.protocolVersion, '2026-07-28');
    assert.ok(connection.serverInfo?.name);
    const result = await connection.probe(2000);
    assert.equal(result.method, 'server/discover');
    assert.equal(result.outcome, 'ok', result.detail);
  });

  void it('connects a modern server once with the modern hint', async () => {
    const spawns = counted(modernStdio());
    try {
      const connection = connections.add(
        await createNodeConnector().connect(stdioServer('modern', spawns.launch), { timeoutMs: CONNECT_MS, eraHint: 'modern' }),
      );
      assert.equal(connection.era, 'modern');
      assert.equal(spawns.spawns(), 1);
    } finally {
      spawns.dispose();
    }
  });

  void it('starts a server that exits on server/discover again as handshake-era, and only once with the hint', async () => {
    const unhinted = counted(peer('exit-on-discover.mjs'));
    const hinted = counted(peer('exit-on-discover.mjs'));
    try {
      const connector = createNodeConnector();
      const first = connections.add(await connector.connect(stdioServer('picky', unhinted.launch), { timeoutMs: CONNECT_MS }));
      assert.equal(first.era, 'handshake');
      assert.equal(first.serverInfo?.name, 'exit-on-discover');
      assert.equal((await first.probe(2000)).outcome, 'ok');
      assert.equal(unhinted.spawns(), 2);
      const second = connections.add(
        await connector.connect(stdioServer('picky', hinted.launch), { timeoutMs: CONNECT_MS, eraHint: first.era }),
      );
      assert.equal((await second.probe(2000)).outcome, 'ok');
      assert.equal(hinted.spawns(), 1);
    } finally {
      unhinted.dispose();
      hinted.dispose();
    }
  });
});

void describe('stdio: exits', () => {
  void it('reports a kill at once, with the signal', async (t) => {
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('victim', faultStdio('none')), { timeoutMs: CONNECT_MS, eraHint: 'handshake' }),
    );
    const closed = nextClose(connection);
    const pid = connection.pid;
    assert.ok(pid !== null);
    const killedAt = performance.now();
    process.kill(pid, 'SIGKILL');
    // On a busy machine the kernel may take a while to tear a Node process down; what counts is how soon after the
    // process is really dead (a zombie, not yet reaped) the exit reaches our listeners. Typically a few ms; the bound
    // leaves room for a loaded CI machine.
    const deadAt = process.platform === 'linux' ? await zombieSince(pid) : killedAt;
    const { info, at } = await closed;
    assert.equal(info.kind, 'exited');
    assert.equal(info.signal, 'SIGKILL');
    t.diagnostic(`exit reported ${(at - deadAt).toFixed(1)} ms after death, ${(at - killedAt).toFixed(1)} ms after the kill`);
    assert.ok(
      at - deadAt < 250,
      `exit reported ${(at - deadAt).toFixed(1)} ms after the process died (${(deadAt - killedAt).toFixed(1)} ms after the kill)`,
    );
  });

  void it('reports the exit code and the stderr tail, and fails the probe in flight as closed', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('quitter', faultStdio('exit-on-ping:3')), {
        timeoutMs: CONNECT_MS,
        eraHint: 'handshake',
      }),
    );
    const stderr: string[] = [];
    connection.onStderr((text) => stderr.push(text));
    const closed = nextClose(connection);
    const sentAt = performance.now();
    const probe = await connection.probe(5000);
    const { info, at } = await closed;
    assert.equal(probe.outcome, 'closed');
    assert.equal(info.kind, 'exited');
    assert.equal(info.exitCode, 3);
    assert.match(info.stderrTail ?? '', /exiting with code 3/);
    assert.match(stderr.join(''), /exiting with code 3/);
    assert.ok(at - sentAt < 3000, `exit reported ${(at - sentAt).toFixed(1)} ms after the ping`);
    assert.equal((await connection.probe(1000)).outcome, 'closed');
  });

  void it('fails a connect to a server that exits at start with the code and stderr', async () => {
    const error = await connectError(
      createNodeConnector().connect(stdioServer('crasher', faultStdio('exit:4')), { timeoutMs: CONNECT_MS, eraHint: 'handshake' }),
    );
    assert.equal(error.kind, 'exited');
    assert.equal(error.details.exitCode, 4);
    assert.match(error.details.stderrTail ?? '', /exiting with code 4/);
  });

  void it('names the missing command when it cannot be spawned', async () => {
    const error = await connectError(
      createNodeConnector().connect(stdioServer('ghost', { command: 'mcp-health-no-such-command', args: ['--x'] }), {
        timeoutMs: CONNECT_MS,
      }),
    );
    assert.equal(error.kind, 'unreachable');
    assert.match(error.message, /mcp-health-no-such-command/);
  });

  void it('keeps a missing working directory apart from a missing command', async () => {
    const error = await connectError(
      createNodeConnector().connect(stdioServer('lost', everythingStdio(), { cwd: '/nonexistent/mcp-health' }), { timeoutMs: CONNECT_MS }),
    );
    assert.equal(error.kind, 'config');
  });

  void it('times out a server that never answers the handshake, within the bound', async () => {
    const startedAt = performance.now();
    const error = await connectError(createNodeConnector().connect(stdioServer('mute', faultStdio('hang-start')), { timeoutMs: 1500 }));
    assert.equal(error.kind, 'timeout');
    assert.ok(performance.now() - startedAt < 1500 + 3000, `took ${(performance.now() - startedAt).toFixed(0)} ms`);
  });

  void it('gives up at once when the caller aborts, leaving no child behind', async () => {
    const controller = new AbortController();
    const spawns = counted(faultStdio('hang-start'));
    try {
      const connecting = createNodeConnector().connect(stdioServer('mute', spawns.launch), {
        timeoutMs: 60_000,
        signal: controller.signal,
      });
      assert.ok(await waitUntil(() => spawns.pids().length === 1, 10_000), 'the server never started');
      const abortedAt = performance.now();
      controller.abort();
      const error = await connectError(connecting);
      assert.equal(error.kind, 'timeout');
      assert.ok(performance.now() - abortedAt < 3000);
      const [pid] = spawns.pids();
      assert.ok(await waitUntil(() => !isAlive(pid), 3000));
    } finally {
      spawns.dispose();
    }
  });
});

void describe('stdio: process groups', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-health-pids-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function startWithChildren(fault: string): Promise<{ pids: number[]; close(): Promise<void> }> {
    const pidfile = path.join(dir, `${fault.replace(/[^a-z]/g, '_')}.pids`);
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('parent', faultStdio(fault, ['--pidfile', pidfile])), {
        timeoutMs: CONNECT_MS,
        eraHint: 'handshake',
      }),
    );
    const pids = readFileSync(pidfile, 'utf8').split('\n').filter(Boolean).map(Number);
    assert.equal(pids.length, 3, 'the server and its two helpers');
    assert.ok(pids.every(isAlive));
    return { pids, close: () => connection.close() };
  }

  void it('close() takes the server and its helpers down, without waiting out the grace period', async () => {
    const { pids, close } = await startWithChildren('spawn-children');
    const startedAt = performance.now();
    await close();
    const elapsedMs = performance.now() - startedAt;
    // Helpers that die on SIGTERM may linger as zombies where nothing reaps them at once: they count as gone.
    assert.ok(elapsedMs < 1500, `close took ${Math.round(elapsedMs)} ms (kill grace 2000 ms)`);
    assert.ok(await waitUntil(() => !pids.some(isAlive), 1000), `still alive: ${pids.filter(isAlive).join(', ')}`);
  });

  void it('close() ends a stopped (SIGSTOP) server without waiting out the grace period', async () => {
    const pidfile = path.join(dir, 'stopped.pid');
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('stopped', faultStdio('none', ['--pidfile', pidfile])), {
        timeoutMs: CONNECT_MS,
        eraHint: 'handshake',
      }),
    );
    const pid = Number(readFileSync(pidfile, 'utf8').split('\n')[0]);
    process.kill(pid, 'SIGSTOP');
    const startedAt = performance.now();
    await connection.close();
    const elapsedMs = performance.now() - startedAt;
    // The kill grace is 2000 ms; a stopped server woken with SIGCONT takes its SIGTERM at once.
    assert.ok(elapsedMs < 1500, `close took ${Math.round(elapsedMs)} ms`);
    assert.ok(!isAlive(pid));
  });

  void it('close() kills a server that ignores SIGTERM after the grace period', async () => {
    const { pids, close } = await startWithChildren('spawn-children,ignore-sigterm');
    const startedAt = performance.now();
    await close();
    assert.ok(performance.now() - startedAt < 5000);
    assert.ok(await waitUntil(() => !pids.some(isAlive), 1000), `still alive: ${pids.filter(isAlive).join(', ')}`);
  });
});

void describe('stdio: hostile output', () => {
  void it('drops garbage stdout lines and keeps working', async () => {
    const logger = collectingLogger();
    const connection = connections.add(
      await createNodeConnector({ logger }).connect(stdioServer('noisy', faultStdio('garbage-stdout')), { timeoutMs: CONNECT_MS }),
    );
    for (let i = 0; i < 3; i++) assert.equal((await connection.probe(2000)).outcome, 'ok');
    assert.ok(logger.lines.some((line) => line.startsWith('debug') && /non-JSON stdout/.test(line)));
  });

  void it('drops a reply whose error is not an error object instead of handing it to the connection', async () => {
    const logger = collectingLogger();
    const connection = connections.add(
      await createNodeConnector({ logger }).connect(stdioServer('malformed', peer('malformed-error.mjs')), {
        timeoutMs: CONNECT_MS,
        eraHint: 'handshake',
      }),
    );
    // Handed on, `"error": null` used to throw out of the transport's data handler; dropped, the probe simply goes unanswered.
    assert.equal((await connection.probe(1000)).outcome, 'timeout');
    assert.ok(
      logger.lines.some((line) => line.startsWith('debug') && /"error":null/.test(line)),
      'logged as stdout garbage',
    );
  });

  void it('carries a 50 MB message', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('big', faultStdio(`big-message:${50 * 1024 * 1024}`)), {
        timeoutMs: CONNECT_MS,
        eraHint: 'handshake',
      }),
    );
    const result = await connection.probe(30_000, 'tools/list');
    assert.equal(result.outcome, 'ok', result.detail);
    assert.equal((await connection.probe(2000)).outcome, 'ok');
  });

  void it('ends as a protocol violation when stdout floods past the bound without a newline', async () => {
    const connection = connections.add(
      await createNodeConnector({ maxMessageBytes: 1024 * 1024 }).connect(
        stdioServer('flood', peer('flood-stdout.mjs', String(4 * 1024 * 1024))),
        {
          timeoutMs: CONNECT_MS,
          eraHint: 'handshake',
        },
      ),
    );
    const closed = nextClose(connection);
    const probe = await connection.probe(5000);
    const { info } = await closed;
    assert.equal(probe.outcome, 'closed');
    assert.equal(info.kind, 'protocol-violation');
  });

  void it('keeps only the stderr tail', async () => {
    const connection = connections.add(
      await createNodeConnector({ stderrBufferBytes: 1024 }).connect(stdioServer('chatty', faultStdio('exit-on-ping:2,stderr-flood')), {
        timeoutMs: CONNECT_MS,
        eraHint: 'handshake',
      }),
    );
    const closed = nextClose(connection);
    await connection.probe(5000);
    const { info } = await closed;
    assert.equal(info.exitCode, 2);
    assert.ok((info.stderrTail ?? '').length <= 1024);
  });
});

void describe('stdio: probe outcomes', () => {
  const cases = [
    { fault: 'nonempty-pong', outcome: 'non-empty' },
    { fault: 'error-pong', outcome: 'error-reply' },
  ] as const;
  for (const { fault, outcome } of cases) {
    void it(`${fault} -> ${outcome}`, async () => {
      const connection = connections.add(
        await createNodeConnector().connect(stdioServer(fault, faultStdio(fault)), { timeoutMs: CONNECT_MS }),
      );
      const result = await connection.probe(2000);
      assert.equal(result.outcome, outcome);
      assert.ok(typeof result.rttMs === 'number');
      assert.ok(result.detail);
    });
  }

  void it("a server/discover answer without supportedVersions -> non-empty (the guard's rule too: core classifyReply)", async () => {
    const launch = modernStdio();
    const connection = connections.add(
      await createNodeConnector().connect(
        stdioServer('modern-unversioned', { ...launch, args: [...launch.args, '--discover-without-versions'] }),
        { timeoutMs: CONNECT_MS },
      ),
    );
    assert.equal(connection.era, 'modern');
    const result = await connection.probe(2000);
    assert.equal(result.method, 'server/discover');
    assert.equal(result.outcome, 'non-empty');
    assert.match(result.detail ?? '', /^result without supportedVersions /);
  });

  void it('hang-ping -> timeout within the timeout, and tools/list still answers', async () => {
    const connection = connections.add(
      await createNodeConnector().connect(stdioServer('hang', faultStdio('hang-ping')), { timeoutMs: CONNECT_MS }),
    );
    const startedAt = performance.now();
    const result = await connection.probe(500);
    const elapsed = performance.now() - startedAt;
    assert.equal(result.outcome, 'timeout');
    assert.equal(result.rttMs, undefined);
    assert.ok(elapsed >= 490 && elapsed < 500 + 1000, `timed out after ${elapsed.toFixed(0)} ms`);
    assert.equal((await connection.probe(2000, 'tools/list')).outcome, 'ok');
  });
});
