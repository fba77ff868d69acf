// One roll-up bucket of a server's history, the way uptime monitors keep it: counts and sums that add up, so minutes
// roll into hours and any window is the sum of its buckets. Pure data and arithmetic.

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export interface Bucket {
  /** Wall-clock start, aligned to the bucket's size (minute or hour). */
  readonly start: number;
  probesOk: number;
  probesFailed: number;
  /** Round trips of answered probes: sum, count, min, max (the mean is rttSum / rttCount). */
  rttSum: number;
  rttCount: number;
  rttMin: number | null;
  rttMax: number | null;
  /** Time proven up by an answered probe, and time not up while it should have been, in ms. */
  upMs: number;
  downMs: number;
  stateChanges: number;
}

export function emptyBucket(start: number): Bucket {
  return { start, probesOk: 0, probesFailed: 0, rttSum: 0, rttCount: 0, rttMin: null, rttMax: null, upMs: 0, downMs: 0, stateChanges: 0 };
}

export function floorTo(time: number, size: number): number {
  return Math.floor(time / size) * size;
}

export const floorToMinute = (time: number) => floorTo(time, MINUTE_MS);

export function addRtt(bucket: Bucket, rttMs: number): void {
  bucket.rttSum += rttMs;
  bucket.rttCount += 1;
  bucket.rttMin = bucket.rttMin === null ? rttMs : Math.min(bucket.rttMin, rttMs);
  bucket.rttMax = bucket.rttMax === null ? rttMs : Math.max(bucket.rttMax, rttMs);
}

/** Adds `from` into `into` (same or coarser bucket). */
export function mergeBucket(into: Bucket, from: Bucket): void {
  into.probesOk += from.probesOk;
  into.probesFailed += from.probesFailed;
  into.rttSum += from.rttSum;
  into.rttCount += from.rttCount;
  if (from.rttMin !== null) into.rttMin = into.rttMin === null ? from.rttMin : Math.min(into.rttMin, from.rttMin);
  if (from.rttMax !== null) into.rttMax = into.rttMax === null ? from.rttMax : Math.max(into.rttMax, from.rttMax);
  into.upMs += from.upMs;
  into.downMs += from.downMs;
  into.stateChanges += from.stateChanges;
}
