// The CLI's readable table and JSON report: why a server failed, and nothing a terminal would obey.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatServerTable, serverReport, STDERR_TAIL_CHARS, summaryLine } from '../../../src/cli/format';
import { terminalSafeJson } from '../../../src/cli/terminalText';
import { status } from '../present/fixtures';

const plain = { color: false };
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

void describe('serverReport stderrTail', () => {
  const crashed = status('crashed', {
    state: 'down',
    lastError: { kind: 'exited', message: 'Process exited with code 3', exitCode: 3 },
    stderrTail: `${'x'.repeat(STDERR_TAIL_CHARS)}\nloading config\nfatal: cannot open db\n`,
  });

  void it('carries the tail of a failed stdio server, bounded', () => {
    const report = serverReport(crashed);
    assert.equal(report.stderrTail?.length, STDERR_TAIL_CHARS);
    assert.ok(report.stderrTail?.endsWith('loading config\nfatal: cannot open db\n'));
  });

  void it('is null for a server that is up, and for a remote server', () => {
    assert.equal(serverReport(status('fine', { stderrTail: 'chatty\n' })).stderrTail, null);
    assert.equal(serverReport(status('remote', { state: 'down', config: { transport: 'http', url: 'https://h.example.test/mcp' }, lastError: { kind: 'unreachable', message: 'refused' }, stderrTail: 'x\n' })).stderrTail, null);
  });

  void it('puts the last two stderr lines under the failed row', () => {
    const lines = formatServerTable([serverReport(crashed)], plain, '/work/ws', true).split('\n');
    assert.match(lines[1], /^crashed\s+down\b.*exited: Process exited with code 3$/);
    assert.deepEqual(lines.slice(2), ['    stderr: loading config', '    stderr: fatal: cannot open db']);
  });
});

void describe('terminal safety', () => {
  const hostile = status('evil\x1b]0;title\x07', {
    serverInfo: { name: 'srv\x1b[2J', version: '1\x9b31m' },
  });

  void it('the table carries no control character from a name, serverInfo or error', () => {
    const down = status('down\x1b[H', { state: 'down', lastError: { kind: 'exited', message: 'boom\x1b[2J\x07' }, stderrTail: 'err\x1b]0;t\x07\n' });
    const table = formatServerTable([serverReport(hostile), serverReport(down)], plain, '/work/ws', true);
    assert.doesNotMatch(table, CONTROL, JSON.stringify(table));
    assert.match(table, /^evil\s+up\b.*srv 1$/m);
    assert.doesNotMatch(formatServerTable([serverReport(hostile)], plain, '/work/ws', false), CONTROL);
  });

  void it('JSON escapes C1 and DEL as well as C0, and parses back to the same value', () => {
    const value = { text: 'a\x9b31m\x7f\x1b[2J' };
    const json = terminalSafeJson(value);
    assert.doesNotMatch(json, CONTROL);
    assert.deepEqual(JSON.parse(json), value);
  });

  void it('an interrupted summary says so', () => {
    assert.equal(summaryLine([serverReport(hostile)], plain, true), 'interrupted: partial result, 1/1 healthy so far');
  });
});
