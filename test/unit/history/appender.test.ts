// The watch --history appender with a fake clock and a real file: whole minutes appear while watching, each once,
// a minute after they end; stop appends the minute under way; nothing is left scheduled.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { HistoryRecorder, type HistoryRecord } from '../../../src/core/history';
import { HistoryAppender } from '../../../src/history/historyAppender';
import { FakeClock } from '../../helpers/fakeClock';

const SERVER = { key: '/w/mcp.json#a', name: 'a', file: '/w/mcp.json' };

void describe('history appender (watch --history)', () => {
  void it('appends each whole minute once, a minute after it ends, and the minute under way on stop', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mcp-health-appender-'));
    try {
      const file = path.join(dir, 'h.jsonl');
      const clock = new FakeClock(Date.UTC(2026, 5, 1, 12, 0, 10));
      const recorder = new HistoryRecorder(() => clock.wall());
      const errors: string[] = [];
      const appender = new HistoryAppender(file, recorder, clock, (message) => errors.push(message));
      await appender.start();
      recorder.state(SERVER, 'up', 0, true);
      const read = async () =>
        (await readFile(file, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as HistoryRecord);
      for (let i = 0; i < 6; i++) {
        recorder.probe(SERVER, { method: 'ping', outcome: 'ok', rttMs: 2 });
        await clock.advance(30_000);
      }
      await appender.settled();
      // 12:03:10 now: 12:00 and 12:01 ended more than a minute ago.
      assert.deepEqual(
        (await read()).map((r) => r.start.slice(11, 16)),
        ['12:00', '12:01'],
      );
      await appender.stop();
      const all = await read();
      assert.deepEqual(
        all.map((r) => r.start.slice(11, 16)),
        ['12:00', '12:01', '12:02', '12:03'],
      );
      assert.deepEqual(
        all.map((r) => r.upMs),
        [50_000, 60_000, 60_000, 10_000],
      );
      assert.equal(clock.pendingTimers(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
