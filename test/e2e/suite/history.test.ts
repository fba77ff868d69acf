// Export History… and Clear History inside a real extension host: the command writes the records the user asked for
// (CSV for a .csv name, JSON lines otherwise) with the fixture servers' real probes, and Clear forgets them.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { HistoryRecord } from '../../../src/core/history';
import { RECORD_COLUMNS } from '../../../src/core/history';
import type { McpHealthApi } from '../../../src/vscode/api';
import { activateExtension, waitFor, waitForState } from './util';

export function defineHistoryTests(): void {
  describe('history export and clear', function () {
    let api: McpHealthApi;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-export-'));

    before(async function () {
      ({ api } = await activateExtension());
    });
    after(function () {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const exported = async (name: string): Promise<string> => {
      const target = vscode.Uri.file(path.join(dir, name));
      await vscode.commands.executeCommand('mcpHealth.exportHistory', target);
      return fs.readFileSync(target.fsPath, 'utf8');
    };
    const okProbes = (text: string, server: string) =>
      text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as HistoryRecord)
        .filter((record) => record.server === server && record.resolution === 'minute')
        .reduce((sum, record) => sum + record.probesOk, 0);

    it('exports JSON lines and CSV with the probes the monitor made, and Clear History forgets them', async function () {
      this.timeout(60_000);
      await waitForState(api, 'everything', ['up'], 45_000);
      await api.registry.pingNow();
      const lines = await waitFor(
        'an answered probe of everything in the export',
        async () => {
          const text = await exported('history.jsonl');
          return okProbes(text, 'everything') >= 1 && text;
        },
        20_000,
      );
      const first = JSON.parse(lines.split('\n')[0]!) as Record<string, unknown>;
      assert.deepEqual(Object.keys(first), [...RECORD_COLUMNS]);
      const csv = await exported('history.csv');
      assert.equal(csv.split('\r\n')[0], RECORD_COLUMNS.join(','));
      assert.ok(
        csv.split('\r\n').some((row) => row.startsWith('history,minute,everything,')),
        csv.slice(0, 500),
      );

      await vscode.commands.executeCommand('mcpHealth.clearHistory', true);
      assert.ok(okProbes(await exported('after-clear.jsonl'), 'everything') < okProbes(lines, 'everything'));
    });
  });
}
