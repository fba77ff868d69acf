import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dashboardServers } from '../../../src/present/dashboardModel';
import { buildTree } from '../../../src/present/treeModel';
import { formatUptime, uptimeBrief, uptimeRow, uptimeWindowsText } from '../../../src/present/uptime';
import type { ServerStatus } from '../../../src/core/model';
import { status } from './fixtures';

void describe('uptime from the kept history', () => {
  const cases: ReadonlyArray<[number | null, string]> = [
    [null, '–'],
    [100, '100 %'],
    [0, '0 %'],
    [99.96, '99.9 %'],
    [98.04, '98.0 %'],
    [50, '50.0 %'],
  ];
  for (const [value, text] of cases) {
    void it(`formats ${String(value)} as ${text} (never rounds up to 100)`, () => assert.equal(formatUptime(value), text));
  }

  void it('names the three windows, with a dash for a window nothing was observed in', () => {
    assert.equal(uptimeWindowsText({ hour: null, day: 99.2, week: 98 }), '1 h – · 24 h 99.2 % · 7 d 98.0 %');
    assert.equal(uptimeBrief({ hour: 100, day: 100, week: 100 }), '100 % (24 h)');
    assert.equal(uptimeBrief({ hour: null, day: null, week: null }), undefined);
    assert.equal(uptimeRow(null), undefined);
  });

  void it('adds one detail row to the tree and one line to the dashboard card, only for servers with history', () => {
    const kept = status('kept');
    const fresh = status('fresh');
    const contextOf = (server: ServerStatus) => ({ uptime: server.config.id === kept.config.id ? { hour: 100, day: 75, week: 75 } : null });
    const tree = buildTree([kept, fresh], [], [], (file) => file, contextOf);
    const rows = (id: string) =>
      (tree.get(`server:${id}`)?.children ?? [])
        .map((child) => tree.get(child))
        .map((n) => (n?.kind === 'detail' ? `${n.row.label}: ${n.row.value}` : ''));
    assert.ok(rows(kept.config.id).includes('history: uptime 1 h 100 % · 24 h 75.0 % · 7 d 75.0 %'), rows(kept.config.id).join('\n'));
    assert.ok(!rows(fresh.config.id).some((row) => row.startsWith('history')));
    const cards = dashboardServers([kept, fresh], contextOf);
    assert.deepEqual(
      cards.map((card) => card.history),
      ['1 h 100 % · 24 h 75.0 % · 7 d 75.0 %', null],
    );
  });
});
