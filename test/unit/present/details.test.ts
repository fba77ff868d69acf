import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detailRows, detailsText, formatClockTime, formatPercent, lastLines } from '../../../src/present/details';
import { diffTools, toolDefinition, toolsInventory } from '../../../src/core/inventory';
import { probes, status } from './fixtures';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const realStderr = (name: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'stderr', `${name}.txt`), 'utf8');

const rowMap = (rows: ReturnType<typeof detailRows>) => new Map(rows.map((row) => [row.key, row]));

void describe('detailRows', () => {
  void it('lists a healthy server with target, protocol, server, latency and uptime', () => {
    const rows = detailRows(
      status('files', {
        config: { args: ['files.js', '--root', '/tmp'] },
        serverInfo: { name: 'files', title: 'File Server', version: '2.1.0' },
        stats: { samples: 4, samplesOk: 3, p50Ms: 4.2, p95Ms: 120, uptimePercent: 75, totals: { sent: 140, ok: 139, failed: 1 } },
      }),
    );
    assert.deepEqual(
      rows.map((row) => row.key),
      ['transport', 'protocol', 'server', 'latency', 'uptime'],
    );
    const byKey = rowMap(rows);
    assert.equal(byKey.get('transport')?.label, 'stdio');
    assert.equal(byKey.get('transport')?.value, 'node files.js --root /tmp');
    assert.equal(byKey.get('protocol')?.value, 'handshake · 2025-06-18');
    assert.equal(byKey.get('server')?.value, 'File Server 2.1.0');
    assert.equal(byKey.get('latency')?.value, 'p50 4.2 ms · p95 120 ms');
    // Every probe so far, not the window the percentiles are computed over.
    assert.equal(byKey.get('uptime')?.value, '75.0 % · 139/140 probes ok');
  });

  void it('shows the era alone when no protocol version is known', () => {
    assert.equal(rowMap(detailRows(status('s', { era: 'modern', protocolVersion: null }))).get('protocol')?.value, 'modern');
  });

  void it('describes the last probe with its clock time, method, outcome and round trip', () => {
    const at = new Date(2024, 0, 2, 9, 5, 7).getTime();
    const row = rowMap(detailRows(status('s', { lastProbeAt: at, stats: { recent: probes(['timeout', 'ok']) } }))).get('lastProbe');
    assert.equal(row?.value, '09:05:07 · ping ok · 3 ms');
    const failed = rowMap(detailRows(status('s', { lastProbeAt: at, stats: { recent: probes(['timeout']) } }))).get('lastProbe');
    assert.equal(failed?.value, '09:05:07 · ping timeout');
  });

  void it('reports failures, restarts, flapping, non-conformance and pid only when they apply', () => {
    const quiet = rowMap(detailRows(status('s')));
    for (const key of ['failures', 'restarts', 'conformance', 'lastError', 'pid', 'stderr', 'trust', 'lastProbe']) {
      assert.equal(quiet.has(key), false, key);
    }
    const busy = rowMap(detailRows(status('s', { consecutiveFailures: 2, restarts: 4, flapping: true, nonConformant: true, pid: 4242 })));
    assert.equal(busy.get('failures')?.value, '2 in a row');
    assert.equal(busy.get('restarts')?.value, '4 · flapping');
    assert.ok(busy.has('conformance'));
    assert.equal(busy.get('pid')?.value, '4242');
  });

  void it('explains why a Restricted-Mode server is not started', () => {
    assert.match(rowMap(detailRows(status('s', { state: 'untrusted' }))).get('trust')?.value ?? '', /Restricted Mode/);
  });

  void it('adds the exit code and HTTP status to the last error', () => {
    const exited = rowMap(detailRows(status('s', { state: 'down', lastError: { kind: 'exited', message: 'process ended', exitCode: 2 } })));
    assert.equal(exited.get('lastError')?.value, 'exited: process ended (exited (code 2))');
    const http = rowMap(
      detailRows(
        status('s', {
          state: 'down',
          config: { transport: 'http', url: 'https://h/mcp' },
          lastError: { kind: 'unreachable', message: 'bad gateway', httpStatus: 502 },
        }),
      ),
    );
    assert.equal(http.get('lastError')?.value, 'unreachable: bad gateway (HTTP 502)');
  });

  void it('keeps a multi-line error on one line but the full text for the tooltip', () => {
    const message = `first line\nsecond line\n${'x'.repeat(300)}`;
    const row = rowMap(detailRows(status('s', { state: 'down', lastError: { kind: 'timeout', message } }))).get('lastError');
    assert.ok(row);
    assert.equal(row.full, `timeout: ${message}`);
    assert.ok(!row.value.includes('\n'));
    assert.ok(row.value.startsWith('timeout: first line ⏎ second line ⏎ '));
    assert.equal(row.value.length, 160);
    assert.ok(row.value.endsWith('…'));
  });

  void it('shows the last stderr line, with the last five lines as the full text', () => {
    const stderrTail = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6', 'l7', ''].join('\n');
    const row = rowMap(detailRows(status('s', { stderrTail }))).get('stderr');
    assert.equal(row?.value, 'l7');
    assert.equal(row?.full, 'l3\nl4\nl5\nl6\nl7');
  });

  void it('shows the thrown error of a real Node crash, not its Node.js version trailer, and keeps it in the full text', () => {
    const row = rowMap(detailRows(status('stripe', { state: 'down', stderrTail: realStderr('stripe-no-key-color') }))).get('stderr');
    assert.match(row?.value ?? '', /^Error: Stripe API key not provided\. .*STRIPE_SECRET_KEY/);
    assert.ok(row?.full?.startsWith(row.value), 'the line is in the tooltip though the last lines are stack frames');
    assert.ok(row?.full?.endsWith('Node.js v20.20.2'));
  });

  void it('falls back to the stderr kept with the last error and ignores blank stderr', () => {
    const fromError = rowMap(
      detailRows(status('s', { state: 'down', lastError: { kind: 'exited', message: 'gone', exitCode: 1, stderrTail: 'Error: boom\n' } })),
    );
    assert.equal(fromError.get('stderr')?.value, 'Error: boom');
    assert.equal(rowMap(detailRows(status('s', { stderrTail: '  \n\n' }))).has('stderr'), false);
  });

  void it('keeps row keys unique so tree elements stay stable', () => {
    const rows = detailRows(
      status('s', {
        state: 'down',
        consecutiveFailures: 1,
        restarts: 1,
        nonConformant: true,
        pid: 1,
        stderrTail: 'x',
        lastProbeAt: 5,
        lastError: { kind: 'exited', message: 'm', exitCode: 1 },
        stats: {
          p50Ms: 1,
          p95Ms: 2,
          uptimePercent: 50,
          samples: 1,
          samplesOk: 1,
          recent: probes(['ok']),
          totals: { sent: 2, ok: 1, failed: 1 },
        },
      }),
    );
    assert.equal(new Set(rows.map((row) => row.key)).size, rows.length);
    assert.equal(rows.length, 12);
  });
});

void describe('detailsText', () => {
  void it('starts with name, state and source and uses the full form of each row', () => {
    const text = detailsText(status('s', { state: 'down', lastError: { kind: 'timeout', message: 'a\nb' } }));
    const lines = text.split('\n');
    assert.equal(lines[0], 's: down');
    assert.equal(lines[1], 'source: /ws/app/.vscode/mcp.json:3');
    assert.ok(text.includes('last error: timeout: a\nb'));
  });
});

void describe('formatting helpers', () => {
  void it('formats percentages with one decimal except at the ends', () => {
    assert.equal(formatPercent(100), '100 %');
    assert.equal(formatPercent(99.96), '100 %');
    assert.equal(formatPercent(99.94), '99.9 %');
    assert.equal(formatPercent(0), '0 %');
    assert.equal(formatPercent(12.345), '12.3 %');
  });

  void it('pads clock times', () => {
    assert.equal(formatClockTime(new Date(2024, 5, 1, 7, 3, 9).getTime()), '07:03:09');
  });

  void it('takes the last lines ignoring trailing blank lines and CRLF', () => {
    assert.equal(lastLines('a\r\nb\r\nc\r\n\r\n', 2), 'b\nc');
    assert.equal(lastLines('only', 5), 'only');
  });
});

void describe('the tools row', () => {
  void it('counts tools, prompts and resources and says when the tools changed', () => {
    const tools = (text: string) =>
      toolsInventory([toolDefinition({ name: 'a', description: text })!, toolDefinition({ name: 'b' })!], 1e6);
    const inventory = { tools: tools('new'), prompts: { count: 1 }, resources: { count: 2 }, complete: true, problems: [], listedAt: 0 };
    const plain = detailRows(status('s', { inventory })).find((row) => row.key === 'tools');
    assert.equal(plain?.value, '2 tools · 1 prompt · 2 resources');
    const drifted = detailRows(status('s', { inventory, drift: diffTools(tools('old'), tools('new')) })).find((row) => row.key === 'tools');
    assert.equal(drifted?.value, '2 tools · 1 prompt · 2 resources · changed since the accepted baseline');
  });
});
