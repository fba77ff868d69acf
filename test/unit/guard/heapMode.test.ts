// The guard's heap mode follows its traffic: memory-saving when it starts and after a quiet period, full speed from the
// first line (code V8 optimises in memory-saving mode stays slower), one switch per edge however many lines, and no
// timer at all while idle.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeapModeByTraffic } from '../../../src/guard/heapMode';
import { FakeClock } from '../../helpers/fakeClock';

function harness() {
  const clock = new FakeClock();
  const switches: boolean[] = [];
  const mode = new HeapModeByTraffic((saving) => switches.push(saving), clock, 1000);
  return { clock, switches, mode };
}

void describe('HeapModeByTraffic', () => {
  it('starts in memory-saving mode and sets no timer while idle', () => {
    const { clock, switches } = harness();
    assert.deepEqual(switches, [true]);
    assert.equal(clock.pendingTimers(), 0);
  });

  it('leaves memory-saving mode at the first line, once for a burst of lines', () => {
    const { switches, mode } = harness();
    mode.traffic();
    assert.deepEqual(switches, [true, false]);
    for (let i = 0; i < 10_000; i++) mode.traffic();
    assert.deepEqual(switches, [true, false]);
  });

  it('stays at full speed while traffic goes on, and saves memory again after a quiet period', async () => {
    const { clock, switches, mode } = harness();
    mode.traffic();
    for (let step = 0; step < 5; step++) {
      await clock.advance(600);
      mode.traffic();
    }
    assert.deepEqual(switches, [true, false], 'a line every 600 ms keeps full speed');
    await clock.advance(1000);
    assert.deepEqual(switches, [true, false], 'the period with the last line has just ended');
    await clock.advance(1000);
    assert.deepEqual(switches, [true, false, true], 'a period without a line: memory-saving again');
    assert.equal(clock.pendingTimers(), 0, 'no timer while idle');
    mode.traffic();
    assert.deepEqual(switches, [true, false, true, false], 'the next line switches again');
  });

  it('dispose() leaves no timer behind', () => {
    const { clock, mode } = harness();
    mode.traffic();
    assert.equal(clock.pendingTimers(), 1);
    mode.dispose();
    assert.equal(clock.pendingTimers(), 0);
  });
});
