import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { backoffCap, backoffDelay } from '../../../../src/core/monitor/index';

const settings = { initialMs: 1_000, maxMs: 60_000 };

void describe('backoff', () => {
  void it('doubles the cap from initialMs and stops at maxMs', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffCap(attempt, settings)),
      [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000],
    );
    assert.equal(backoffCap(5_000, settings), 60_000, 'a huge attempt number must not overflow past the cap');
  });

  void it('is full jitter: the delay is random() times the cap', () => {
    assert.equal(
      backoffDelay(3, settings, () => 0),
      0,
    );
    assert.equal(
      backoffDelay(3, settings, () => 0.5),
      4_000,
    );
    assert.equal(
      backoffDelay(3, settings, () => 0.25),
      2_000,
    );
    let calls = 0;
    backoffDelay(0, settings, () => {
      calls += 1;
      return 0.1;
    });
    assert.equal(calls, 1);
  });

  void it('always lies in [0, cap) for any attempt and any random value in [0, 1)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (attempt, random, initialMs, extraMs) => {
          const bounds = { initialMs, maxMs: initialMs + extraMs };
          const delay = backoffDelay(attempt, bounds, () => random);
          const cap = backoffCap(attempt, bounds);
          return delay >= 0 && delay <= cap && cap <= bounds.maxMs && (cap === 0 || delay < cap || random === 1);
        },
      ),
    );
  });

  void it('clamps a misbehaving random source into the cap', () => {
    assert.equal(
      backoffDelay(0, settings, () => 7),
      1_000,
    );
    assert.equal(
      backoffDelay(0, settings, () => -3),
      0,
    );
  });
});
