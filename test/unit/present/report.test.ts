import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statusReportMarkdown } from '../../../src/present/report';
import { status } from './fixtures';

const displayPath = (file: string) => file.replace('/ws/app/', '');
const noon = new Date(2024, 0, 2, 12, 30, 5).getTime();

function tableRows(report: string): string[] {
  return report.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Server '));
}

/** Splits a Markdown table row on unescaped pipes. */
function cells(row: string): string[] {
  return row.slice(2, -2).split(/(?<!\\) \| /);
}

void describe('statusReportMarkdown', () => {
  void it('with no servers says so and has no table', () => {
    const report = statusReportMarkdown([], noon, displayPath);
    assert.match(report, /^## MCP server health \(2024-01-0\d \d\d:\d\d:\d\d\)/);
    assert.ok(report.includes('0/0 monitored servers healthy; 0 configured.'));
    assert.ok(!report.includes('|'));
  });

  void it('has one row per server with eleven cells in header order, the last the same why and next step as the views', () => {
    const report = statusReportMarkdown(
      [
        status('files', { lastRttMs: 2.5, stats: { p50Ms: 3, p95Ms: 12.5, uptimePercent: 99.5 } }),
        status('remote', {
          state: 'down',
          restarts: 2,
          lastRttMs: null,
          config: { transport: 'http', url: 'https://api.example.test/mcp', source: { line: 9 } },
          lastError: { kind: 'unreachable', message: 'connection refused' },
        }),
        status('off', { state: 'disabled' }),
      ],
      noon,
      displayPath,
    );
    assert.ok(report.includes('1/2 monitored servers healthy; 3 configured.'));
    assert.ok(
      report.includes(
        '| Server | State | Transport | Target | RTT | p50 / p95 | Uptime | Restarts | Source | Last error | Why / next step |',
      ),
    );
    const rows = tableRows(report);
    assert.equal(rows.length, 3);
    assert.deepEqual(cells(rows[0]!), [
      'files',
      'up · 2.5 ms',
      'stdio',
      'node files.js',
      '2.5 ms',
      '3 ms / 13 ms',
      '99.5 %',
      '0',
      '.vscode/mcp.json:3',
      '',
      '',
    ]);
    assert.deepEqual(cells(rows[1]!), [
      'remote',
      'down · unreachable',
      'http',
      'https://api.example.test/mcp',
      '–',
      '–',
      '–',
      '2',
      '.vscode/mcp.json:9',
      'unreachable: connection refused',
      'Nothing is listening at that host and port. Next: Start the server, or fix the port in the url',
    ]);
    assert.ok(report.endsWith('\n'));
  });

  void it('escapes pipes, backslashes and newlines so a cell cannot break the table', () => {
    const report = statusReportMarkdown(
      [status('a|b', { state: 'down', lastError: { kind: 'exited', message: 'line one\nC:\\path | x', exitCode: 1 } })],
      noon,
      displayPath,
    );
    const rows = tableRows(report);
    assert.equal(rows.length, 1);
    const row = cells(rows[0]!);
    assert.equal(row.length, 11);
    assert.equal(row[0], 'a\\|b');
    assert.equal(row[9], 'exited: line one C:\\\\path \\| x');
  });

  void it('dates the heading with the local day of the local time it shows', () => {
    const previous = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      // 03:00 UTC on 2 January is 22:00 on 1 January in New York.
      const report = statusReportMarkdown([], Date.UTC(2024, 0, 2, 3, 0, 0), displayPath);
      assert.ok(report.startsWith('## MCP server health (2024-01-01 22:00:00)'), report.split('\n')[0]);
    } finally {
      if (previous === undefined) {
        delete process.env.TZ;
      } else {
        process.env.TZ = previous;
      }
    }
  });
});
