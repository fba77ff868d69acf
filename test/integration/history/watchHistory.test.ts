// `mcp-health watch --history FILE` end to end: the bundled CLI against real servers on 127.0.0.1 appends the same
// records "Export History…" writes, one JSON line per server and minute, to a file that already had lines.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RECORD_COLUMNS, type HistoryRecord } from '../../../src/core/history';
import { everythingStdio } from '../../helpers/servers';
import { runCli } from '../../helpers/cli';

describe('mcp-health watch --history', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-watch-history-'));
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('appends history records of an up and a down server, keeping what the file held', async () => {
    const config = path.join(dir, 'mcp.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        servers: {
          everything: { type: 'stdio', ...everythingStdio() },
          gone: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] },
        },
      }),
    );
    const history = path.join(dir, 'out', 'history.jsonl');
    fs.mkdirSync(path.dirname(history));
    fs.writeFileSync(history, '{"earlier":"line"}\n');
    const run = await runCli([
      'watch',
      '--config',
      config,
      '--history',
      history,
      '--interval-ms',
      '1000',
      '--duration-ms',
      '5000',
      '--json',
    ]);
    assert.equal(run.code, 1, run.stderr); // one server is down
    const lines = fs.readFileSync(history, 'utf8').trimEnd().split('\n');
    assert.equal(lines[0], '{"earlier":"line"}');
    const records = lines.slice(1).map((line) => JSON.parse(line) as HistoryRecord);
    assert.ok(records.length >= 2, lines.join('\n'));
    for (const record of records) assert.deepEqual(Object.keys(record), [...RECORD_COLUMNS]);
    const sum = (name: string, field: 'probesOk' | 'probesFailed' | 'upMs' | 'downMs') =>
      records.filter((record) => record.server === name).reduce((total, record) => total + record[field], 0);
    assert.ok(sum('everything', 'probesOk') >= 2, `probes ok: ${sum('everything', 'probesOk')}`);
    assert.ok(sum('everything', 'upMs') > 1000, `up: ${sum('everything', 'upMs')}`);
    assert.equal(sum('everything', 'downMs'), 0);
    assert.ok(sum('gone', 'downMs') > 1000, `down: ${sum('gone', 'downMs')}`);
    assert.equal(sum('gone', 'upMs'), 0);
    assert.ok(records.every((record) => record.resolution === 'minute' && record.file === config));
  });

  it('refuses --history outside watch and a file it cannot write, before starting anything', async () => {
    const check = await runCli(['check', '--config', path.join(dir, 'none.json'), '--history', path.join(dir, 'h.jsonl')]);
    assert.equal(check.code, 2);
    assert.match(check.stderr, /--history applies to watch only/);
    const blocker = path.join(dir, 'blocker');
    fs.writeFileSync(blocker, '');
    const empty = path.join(dir, 'empty.json');
    fs.writeFileSync(empty, '{"servers":{}}');
    const watch = await runCli(['watch', '--config', empty, '--history', path.join(blocker, 'h.jsonl'), '--duration-ms', '100']);
    assert.equal(watch.code, 2);
    assert.match(watch.stderr, /--history: cannot write/);
  });
});
