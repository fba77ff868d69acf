// The history file with real files in a temporary directory: round trip, batching, atomic replacement, and each
// repair path (corrupt, another version, over the cap, far over the cap, broken entries), each with its log line.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { HISTORY_FORMAT, HistoryRecorder, HOUR_MS, type ServerIdentity } from '../../../src/core/history';
import { HistoryStore } from '../../../src/history/historyStore';
import { collectingLogger } from '../../helpers/collectingLogger';
import { FakeClock } from '../../helpers/fakeClock';

const SERVER: ServerIdentity = { key: '/w/mcp.json#alpha', name: 'alpha', file: '/w/mcp.json' };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mcp-health-history-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function setup(options: { maxBytes?: number; file?: string } = {}) {
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  const recorder = new HistoryRecorder(() => clock.wall());
  const logger = collectingLogger();
  const file = options.file ?? path.join(dir, 'history.json');
  const store = new HistoryStore({
    file,
    recorder,
    clock,
    logger,
    flushMs: 30_000,
    ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}),
  });
  return { clock, recorder, logger, file, store };
}

/** A server up and probed every 30 s for `minutes` minutes. */
async function upFor(clock: FakeClock, recorder: HistoryRecorder, minutes: number, id: ServerIdentity = SERVER): Promise<void> {
  recorder.state(id, 'up', 0, true);
  for (let i = 0; i < minutes * 2; i++) {
    recorder.probe(id, { method: 'ping', outcome: 'ok', rttMs: 5 });
    await clock.advance(30_000);
  }
}

void describe('history store', () => {
  void it('writes a versioned document and a new store loads it back with the same uptime', async () => {
    const first = setup();
    await upFor(first.clock, first.recorder, 10);
    await first.store.dispose();
    const text = await readFile(first.file, 'utf8');
    assert.equal((JSON.parse(text) as { format: string; version: number }).format, HISTORY_FORMAT);
    const second = setup();
    assert.equal(await second.store.load(), 'loaded');
    await second.clock.advance(10 * 60_000);
    assert.deepEqual(second.recorder.uptime(SERVER.key), first.recorder.uptime(SERVER.key));
    assert.equal(second.recorder.uptime(SERVER.key).hour, 100);
  });

  void it('a close right after opening waits for the file to be read, and keeps what it held', async () => {
    const first = setup();
    await upFor(first.clock, first.recorder, 5);
    await first.store.dispose();
    const second = setup();
    const loading = second.store.load();
    second.recorder.state(SERVER, 'down', 1, true);
    await second.store.dispose(); // at once: the file is still being read
    await loading;
    const third = setup();
    await third.store.load();
    const kept = third.recorder.servers()[0];
    assert.ok(kept && [...kept.minutes.values()].reduce((sum, b) => sum + b.upMs, 0) >= 5 * 60_000, 'the first session is still there');
    assert.ok((kept.hours.values().next().value?.stateChanges ?? 0) >= 2, "and the second one's state change");
  });

  void it('a missing file is a fresh start without a warning', async () => {
    const { store, logger } = setup();
    assert.equal(await store.load(), 'missing');
    assert.deepEqual(logger.lines, []);
  });

  void it('batches: nothing is written until the flush interval passes, then once; dispose writes the rest', async () => {
    const { clock, recorder, store, file } = setup();
    recorder.state(SERVER, 'up', 0, true);
    for (let i = 0; i < 20; i++) {
      recorder.probe(SERVER, { method: 'ping', outcome: 'ok', rttMs: 1 });
      await clock.advance(1_000);
    }
    await store.settled();
    assert.equal(store.writes, 0);
    await assert.rejects(stat(file));
    await clock.advance(10_000);
    await store.settled();
    assert.equal(store.writes, 1);
    await store.dispose();
    assert.equal(store.writes, 2);
    assert.equal(clock.pendingTimers(), 0, 'no timer left behind');
  });

  void it('replaces the file atomically: no temporary file is left, and a failed write keeps the old file', async () => {
    const { clock, recorder, store, file, logger } = setup();
    await upFor(clock, recorder, 2);
    await store.flush();
    const before = await readFile(file, 'utf8');
    assert.deepEqual((await readdir(dir)).sort(), ['history.json']);
    // A directory where the temporary file would go makes the next write fail.
    const blocked = setup({ file: path.join(dir, 'sub', 'history.json') });
    await mkdir(path.join(dir, 'sub'), { recursive: true });
    await writeFile(path.join(dir, 'sub', 'history.json'), before);
    await rm(path.join(dir, 'sub'), { recursive: true });
    await writeFile(path.join(dir, 'sub'), 'a file, not a directory');
    await upFor(blocked.clock, blocked.recorder, 1);
    await assert.rejects(blocked.store.flush());
    assert.ok(
      blocked.logger.lines.some(
        (line) => line.startsWith('warn history: could not write') && line.includes(path.join(dir, 'sub', 'history.json')),
      ),
      blocked.logger.lines.join('\n'),
    );
    assert.equal(await readFile(file, 'utf8'), before);
    assert.deepEqual(logger.lines, []);
  });

  const broken: ReadonlyArray<{ name: string; text: string; log: RegExp }> = [
    {
      name: 'a corrupt (truncated) file',
      text: '{"format":"mcp-health-history","version":1,"servers":[{"key"',
      log: /is unusable \(not JSON/,
    },
    {
      name: 'a file of an older version',
      text: '{"format":"mcp-health-history","version":0,"servers":[],"minuteFrom":0}',
      log: /is unusable \(version 0 is not supported/,
    },
    {
      name: 'a file of an unknown version',
      text: '{"format":"mcp-health-history","version":99,"servers":[],"minuteFrom":0}',
      log: /version 99/,
    },
    { name: 'something else entirely', text: '[1,2,3]', log: /not an mcp-health-history document/ },
  ];
  for (const c of broken) {
    void it(`starts afresh from ${c.name}, logs a line naming the file and keeps the old one as .bad`, async () => {
      const { store, logger, file, clock, recorder } = setup();
      await writeFile(file, c.text);
      assert.equal(await store.load(), 'started-afresh');
      assert.equal(logger.lines.length, 1);
      assert.match(logger.lines[0]!, c.log);
      assert.ok(logger.lines[0]!.includes(file), logger.lines[0]);
      assert.equal(await readFile(`${file}.bad`, 'utf8'), c.text);
      await upFor(clock, recorder, 1);
      await store.flush();
      assert.equal((JSON.parse(await readFile(file, 'utf8')) as { version: number }).version, 1);
    });
  }

  void it('repairs a file with broken entries: keeps the readable servers and says how many entries went', async () => {
    const { store, logger, file, recorder } = setup();
    const good = [Date.UTC(2026, 5, 1, 11, 59), 1, 0, 5, 1, 5, 5, 60_000, 0, 0];
    await writeFile(
      file,
      JSON.stringify({
        format: HISTORY_FORMAT,
        version: 1,
        savedAt: 0,
        minuteFrom: Date.UTC(2026, 5, 1, 11) - 24 * HOUR_MS,
        servers: [{ key: SERVER.key, name: 'alpha', file: '/w/mcp.json', m: [good, 'junk'], h: [] }, { broken: true }],
      }),
    );
    assert.equal(await store.load(), 'repaired');
    assert.match(
      logger.lines.join('\n'),
      new RegExp(`repaired ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 2 unreadable entries dropped`),
    );
    assert.equal(recorder.uptime(SERVER.key).hour, 100);
  });

  void it('over its size cap: loads, logs, and the next write prunes it under the cap', async () => {
    const big = setup();
    const ids = Array.from({ length: 10 }, (_, i) => ({ ...SERVER, key: `${SERVER.key}${i}`, name: `s${i}` }));
    for (const id of ids) big.recorder.state(id, 'up', 0, true);
    for (let i = 0; i < 240; i++) {
      for (const id of ids) big.recorder.probe(id, { method: 'ping', outcome: 'ok', rttMs: 5 });
      await big.clock.advance(30_000);
    }
    await big.store.flush();
    const size = (await stat(big.file)).size;
    const cap = Math.floor(size / 2);
    const small = setup({ maxBytes: cap });
    await small.clock.advance(2 * HOUR_MS); // the next window opens when the first closed
    assert.equal(await small.store.load(), 'pruned');
    assert.match(small.logger.lines.join('\n'), new RegExp(`over its ${cap}-byte cap`));
    await small.store.flush();
    assert.ok((await stat(small.file)).size <= cap, 'written under the cap');
    assert.match(small.logger.lines.join('\n'), /reached its size cap; \d+ of the oldest buckets dropped/);
  });

  void it('far over its size cap: not even parsed, started afresh', async () => {
    const { store, logger, file } = setup({ maxBytes: 1000 });
    await writeFile(file, JSON.stringify({ format: HISTORY_FORMAT, version: 1, padding: 'x'.repeat(10_000) }));
    assert.equal(await store.load(), 'started-afresh');
    assert.match(logger.lines[0]!, /far over its 1000-byte cap; starting afresh/);
  });

  void it('a FIFO or /dev/zero as the history file: refused at once with a line naming it, started afresh', async () => {
    const fifo = path.join(dir, 'history.fifo');
    execFileSync('mkfifo', [fifo]);
    const zero = path.join(dir, 'zero.json');
    await symlink('/dev/zero', zero);
    for (const [file, kind] of [
      [fifo, 'a FIFO'],
      [zero, 'a character device'],
    ] as const) {
      const { store, logger } = setup({ file });
      assert.equal(await store.load(), 'started-afresh');
      assert.ok(logger.lines[0]!.includes(`cannot read ${file} (is ${kind}`), logger.lines[0]);
    }
  });

  void it('clear writes an empty history at once', async () => {
    const { clock, recorder, store, file } = setup();
    await upFor(clock, recorder, 3);
    await store.clear();
    const document = JSON.parse(await readFile(file, 'utf8')) as { servers: Array<{ m: unknown[]; h: unknown[] }> };
    assert.ok(document.servers.every((server) => server.m.length === 0 && server.h.length === 0));
    await store.dispose();
  });
});
