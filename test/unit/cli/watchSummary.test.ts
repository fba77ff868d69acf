// The watch summary reports what the whole run saw: every probe, not the last hundred the percentiles are taken over.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { watchSummary } from '../../../src/cli/watchSummary';
import { PROBE_HISTORY_SIZE } from '../../../src/core/monitor/index';
import { harness, INTERVAL_MS, server } from '../core/monitor/harness';

void describe('watch summary', () => {
  void it('counts every probe of a run of 150 and more, beyond the 100-probe window', async () => {
    const h = harness();
    const a = server('a');
    let probes = 0;
    let failed = 0;
    // Every tenth probe answers with a JSON-RPC error: not ok, and never twice in a row (one reconnect, no loop).
    h.connector.always(a.id, {
      probe: () => {
        probes += 1;
        if (probes % 10 !== 0) return { outcome: 'ok', afterMs: 1 };
        failed += 1;
        return { outcome: 'error-reply', afterMs: 1 };
      },
    });
    h.registry.setServers([a], []);
    h.registry.start();
    while (probes < 150) {
      await h.clock.advance(INTERVAL_MS + 10);
    }
    const statuses = h.registry.list();
    const [summary] = watchSummary(statuses, 0, 1_000).servers;
    assert.equal(statuses[0]?.stats.samples, PROBE_HISTORY_SIZE, 'the window is full');
    assert.ok(summary);
    assert.ok(probes >= 150);
    assert.equal(summary.probes, probes);
    assert.equal(summary.failed, failed);
    assert.equal(summary.ok, probes - failed);
    await h.registry.dispose();
  });
});
