import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spreadOffsetMs } from '../../../bench/lib/spread';

/** The widest stretch of the interval with no first probe in it, the wrap-around included. */
function widestGapMs(count: number, intervalMs: number): number {
  const offsets = Array.from({ length: count }, (_, index) => spreadOffsetMs(index, intervalMs)).sort((a, b) => a - b);
  let widest = offsets[0] + intervalMs - offsets[offsets.length - 1];
  for (let i = 1; i < offsets.length; i++) widest = Math.max(widest, offsets[i] - offsets[i - 1]);
  return widest;
}

test('every offset lies inside the interval', () => {
  for (let index = 0; index < 1000; index++) {
    const offset = spreadOffsetMs(index, 1000);
    assert.ok(offset >= 0 && offset < 1000, `server ${index}: ${offset} ms`);
  }
});

test('the first probes are spread evenly over the interval, for every server count the bench uses', () => {
  for (const count of [100, 500, 1000]) {
    const evenShareMs = 1000 / count;
    const widest = widestGapMs(count, 1000);
    assert.ok(widest <= 2.7 * evenShareMs, `${count} servers: a gap of ${widest.toFixed(2)} ms, the even share ${evenShareMs} ms`);
  }
});

test('the offsets are the same on every call, so every contender probes its servers at the same moments', () => {
  assert.equal(spreadOffsetMs(7, 1000), spreadOffsetMs(7, 1000));
  assert.notEqual(spreadOffsetMs(7, 1000), spreadOffsetMs(8, 1000));
  assert.equal(spreadOffsetMs(3, 2000), 2 * spreadOffsetMs(3, 1000));
});
