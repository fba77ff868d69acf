import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  closedMinuteRecords,
  csv,
  encodeHistory,
  encodeHistorySliced,
  encodeWithinCap,
  encodeWithinCapSliced,
  historyRecords,
  HistoryFormatError,
  HistoryRecorder,
  jsonLines,
  MINUTE_MS,
  HOUR_MS,
  parseHistory,
  RECORD_COLUMNS,
  type ServerIdentity,
} from '../../../../src/core/history';

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);

function serverNamed(name: string): ServerIdentity {
  return { key: `/w/mcp.json#${name}`, name, file: '/w/mcp.json' };
}

/** `servers` servers up and probed every 30 s for `hours` hours. */
function busyRecorder(servers: number, hours: number): { recorder: HistoryRecorder; setNow: (t: number) => void } {
  let now = T0;
  const recorder = new HistoryRecorder(() => now);
  const ids = Array.from({ length: servers }, (_, i) => serverNamed(`s${i}`));
  for (const id of ids) recorder.state(id, 'up', 0, true);
  for (let t = 0; t < hours * HOUR_MS; t += 30_000) {
    now = T0 + t;
    for (const id of ids) recorder.probe(id, { method: 'ping', outcome: 'ok', rttMs: 3 + (t % 7) });
  }
  now = T0 + hours * HOUR_MS;
  recorder.settle();
  return {
    recorder,
    setNow: (t) => {
      now = t;
    },
  };
}

void describe('history document', () => {
  void it('round-trips: a recorder loaded from the text answers the same uptime and holds the same buckets', () => {
    const { recorder } = busyRecorder(2, 3);
    const text = encodeHistory(recorder, T0);
    const parsed = parseHistory(text);
    assert.equal(parsed.skipped, 0);
    const loaded = new HistoryRecorder(() => T0 + 3 * HOUR_MS);
    loaded.load(parsed.servers, parsed.minuteFrom);
    assert.deepEqual(loaded.uptime('/w/mcp.json#s1'), recorder.uptime('/w/mcp.json#s1'));
    assert.equal(encodeHistory(loaded, T0), text);
  });

  const rejected: ReadonlyArray<{ name: string; text: string; message: RegExp }> = [
    { name: 'truncated JSON', text: '{"format":"mcp-health-history","vers', message: /not JSON/ },
    { name: 'another document', text: '{"format":"mcp-health-baseline","version":1}', message: /not an mcp-health-history/ },
    {
      name: 'an older version',
      text: '{"format":"mcp-health-history","version":0,"servers":[],"minuteFrom":0}',
      message: /version 0 is not supported/,
    },
    { name: 'a newer version', text: '{"format":"mcp-health-history","version":2,"servers":[],"minuteFrom":0}', message: /version 2/ },
    { name: 'no servers list', text: '{"format":"mcp-health-history","version":1,"minuteFrom":0}', message: /"servers"/ },
  ];
  for (const c of rejected) {
    void it(`rejects ${c.name}`, () => {
      assert.throws(
        () => parseHistory(c.text),
        (error: unknown) => error instanceof HistoryFormatError && c.message.test(error.message),
      );
    });
  }

  void it('repairs: keeps what it can read, skips broken entries and buckets and counts them', () => {
    const good = [T0, 1, 0, 5, 1, 5, 5, 60_000, 0, 0];
    const text = JSON.stringify({
      format: 'mcp-health-history',
      version: 1,
      savedAt: T0,
      minuteFrom: T0 - HOUR_MS,
      servers: [{ key: 'k1', name: 'a', file: 'f', m: [good, [T0, 'x'], null], h: [good] }, { name: 'no key' }, 'junk'],
    });
    const parsed = parseHistory(text);
    assert.equal(parsed.servers.length, 1);
    assert.equal(parsed.servers[0]?.minutes.size, 1);
    assert.equal(parsed.skipped, 4);
  });

  void it('over the size cap, drops minute detail from the oldest hour first and keeps the hourly totals', () => {
    const { recorder } = busyRecorder(20, 6);
    const full = encodeHistory(recorder, T0).length;
    const before = recorder.uptime('/w/mcp.json#s3');
    const { text, pruned } = encodeWithinCap(recorder, T0, Math.floor(full / 2));
    assert.ok(text.length <= full / 2, `${text.length} > ${full / 2}`);
    assert.ok(pruned > 0);
    assert.ok(recorder.minuteFrom > T0, 'the oldest minutes went');
    assert.equal(recorder.servers()[0]?.hours.size, 6, 'every hour is still there');
    assert.deepEqual(recorder.uptime('/w/mcp.json#s3'), before);
    assert.ok(parseHistory(text).servers.length === 20);
  });

  void it('encoded in slices, the text is the same as in one pass, with a yield between slices of servers', async () => {
    const { recorder } = busyRecorder(60, 2);
    let yields = 0;
    const sliced = await encodeHistorySliced(recorder, T0, async () => {
      yields += 1;
    });
    assert.equal(sliced, encodeHistory(recorder, T0));
    assert.equal(yields, 2, '60 servers, 25 per slice: two yields');
    const capped = await encodeWithinCapSliced(recorder, T0, async () => undefined, Math.floor(sliced.length / 2));
    assert.ok(capped.pruned > 0 && capped.text.length <= sliced.length / 2);
  });

  void it('under the cap, nothing is pruned', () => {
    const { recorder } = busyRecorder(2, 1);
    assert.equal(encodeWithinCap(recorder, T0).pruned, 0);
  });
});

void describe('history records (export and watch --history)', () => {
  void it('one record per bucket with the same columns in JSON lines and CSV', () => {
    const { recorder } = busyRecorder(1, 1);
    const records = historyRecords(recorder.servers());
    // Settled exactly at 13:00: one hour bucket and its 60 minutes.
    assert.equal(records.filter((r) => r.resolution === 'hour').length, 1);
    assert.equal(records.filter((r) => r.resolution === 'minute').length, 60);
    const first = records.find((r) => r.resolution === 'minute');
    assert.deepEqual(first, {
      type: 'history',
      resolution: 'minute',
      server: 's0',
      key: '/w/mcp.json#s0',
      file: '/w/mcp.json',
      start: '2026-06-01T12:00:00.000Z',
      end: '2026-06-01T12:01:00.000Z',
      probesOk: 2,
      probesFailed: 0,
      rttAvgMs: 5.5,
      rttMinMs: 3,
      rttMaxMs: 8,
      upMs: 60_000,
      downMs: 0,
      uptimePercent: 100,
      stateChanges: 1,
    });
    const lines = jsonLines(records).trimEnd().split('\n');
    assert.equal(lines.length, records.length);
    assert.deepEqual(Object.keys(JSON.parse(lines[0]!) as object), [...RECORD_COLUMNS]);
    const rows = csv(records).trimEnd().split('\r\n');
    assert.equal(rows[0], RECORD_COLUMNS.join(','));
    assert.equal(rows.length, records.length + 1);
  });

  void it('CSV quotes commas and quotes, and defuses cells a spreadsheet would run as a formula', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.probe({ key: 'k', name: '=HYPERLINK("http://x","a,b")', file: '/w/a "b".json' }, { method: 'ping', outcome: 'ok', rttMs: 1 });
    now += MINUTE_MS;
    const row = csv(historyRecords(recorder.servers())).split('\r\n')[1]!;
    assert.ok(row.startsWith('history,hour,"\'=HYPERLINK(""http://x"",""a,b"")",k,"/w/a ""b"".json",'), row);
  });

  void it('CSV defuses a formula after a ";" too (Excel splits there in ";" locales, quotes or not), and quotes the cell', () => {
    let now = T0;
    const recorder = new HistoryRecorder(() => now);
    recorder.probe({ key: 'k', name: 'srv;=cmd|"/c calc"!A1;-2;ok', file: '/w/a.json' }, { method: 'ping', outcome: 'ok', rttMs: 1 });
    now += MINUTE_MS;
    const row = csv(historyRecords(recorder.servers())).split('\r\n')[1]!;
    assert.ok(row.startsWith('history,hour,"srv;\'=cmd|""/c calc""!A1;\'-2;ok",k,'), row);
    for (const piece of row.split(';')) assert.doesNotMatch(piece, /^[=+\-@]/, piece);
  });

  void it('closed minutes: only whole minutes at or after the cursor, in time order', () => {
    const { recorder } = busyRecorder(2, 1);
    const records = closedMinuteRecords(recorder.servers(), T0 + 58 * MINUTE_MS, T0 + 59 * MINUTE_MS + 30_000);
    assert.deepEqual(
      records.map((r) => `${r.start.slice(11, 16)} ${r.server}`),
      ['12:58 s0', '12:58 s1'],
    );
  });
});
