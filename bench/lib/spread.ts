// Where each server's first probe falls in a scale phase (bench/scale/worker.ts): every phase starts spread.

const GOLDEN_RATIO_CONJUGATE = (Math.sqrt(5) - 1) / 2;

/**
 * Server `index`'s offset in the interval: the golden-ratio sequence, so any number of servers is spread evenly (no
 * gap between neighbours more than about 2.6 times the even share) and every contender gets the same offsets.
 */
export function spreadOffsetMs(index: number, intervalMs: number): number {
  return ((index * GOLDEN_RATIO_CONJUGATE) % 1) * intervalMs;
}
