// The history file: one versioned JSON document per workspace. Buckets are stored as number tuples so a month of
// history for many servers stays small; the size cap drops minute detail first (the hours keep the same totals), then
// the oldest hours.

import { HOUR_MS, DAY_MS, floorTo, type Bucket } from './buckets';
import type { HistoryRecorder, ServerHistory } from './recorder';

export const HISTORY_FORMAT = 'mcp-health-history';
export const HISTORY_VERSION = 1;
/** 5 MB: a month of hourly and a day of minutely buckets for about 30 servers probed all day, far more for most. */
export const HISTORY_MAX_BYTES = 5 * 1024 * 1024;

type Tuple = [number, number, number, number, number, number | null, number | null, number, number, number];

export class HistoryFormatError extends Error {}

function toTuple(b: Bucket): Tuple {
  return [b.start, b.probesOk, b.probesFailed, b.rttSum, b.rttCount, b.rttMin, b.rttMax, b.upMs, b.downMs, b.stateChanges];
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function fromTuple(value: unknown): Bucket | null {
  if (!Array.isArray(value) || value.length !== 10) return null;
  const [start, probesOk, probesFailed, rttSum, rttCount, rttMin, rttMax, upMs, downMs, stateChanges] = value as unknown[];
  const counts = [start, probesOk, probesFailed, rttSum, rttCount, upMs, downMs, stateChanges];
  if (!counts.every(isCount)) return null;
  if (!(rttMin === null || isCount(rttMin)) || !(rttMax === null || isCount(rttMax))) return null;
  return {
    start: start as number,
    probesOk: probesOk as number,
    probesFailed: probesFailed as number,
    rttSum: rttSum as number,
    rttCount: rttCount as number,
    rttMin: rttMin as number | null,
    rttMax: rttMax as number | null,
    upMs: upMs as number,
    downMs: downMs as number,
    stateChanges: stateChanges as number,
  };
}

function serverEntry(server: ServerHistory) {
  return {
    key: server.key,
    name: server.name,
    file: server.file,
    m: [...server.minutes.values()].map(toTuple),
    h: [...server.hours.values()].map(toTuple),
  };
}

export function encodeHistory(recorder: HistoryRecorder, savedAt: number): string {
  const servers = recorder.servers().map(serverEntry);
  return JSON.stringify({ format: HISTORY_FORMAT, version: HISTORY_VERSION, savedAt, minuteFrom: recorder.minuteFrom, servers });
}

/** Servers encoded between two yields: at 500 servers a whole document is tens of ms of one synchronous stringify. */
const SERVERS_PER_SLICE = 25;

/**
 * The same text as encodeHistory, encoded a slice of servers at a time with `yieldNow` between slices, so a large
 * history never holds the extension host for one long stretch. Each server is encoded whole within a slice, so a
 * probe recorded during a yield lands in this write or the next, never half in one.
 */
export async function encodeHistorySliced(recorder: HistoryRecorder, savedAt: number, yieldNow: () => Promise<void>): Promise<string> {
  const head = JSON.stringify({ format: HISTORY_FORMAT, version: HISTORY_VERSION, savedAt, minuteFrom: recorder.minuteFrom });
  const servers = recorder.servers();
  const parts: string[] = [];
  for (let index = 0; index < servers.length; index += 1) {
    if (index > 0 && index % SERVERS_PER_SLICE === 0) await yieldNow();
    parts.push(JSON.stringify(serverEntry(servers[index])));
  }
  return `${head.slice(0, -1)},"servers":[${parts.join(',')}]}`;
}

export interface ParsedHistory {
  readonly servers: readonly ServerHistory[];
  readonly minuteFrom: number;
  /** Entries that could not be read and were left out (the rest of the file is kept). */
  readonly skipped: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Reads a history document; throws HistoryFormatError when it is not one, or of another version. */
export function parseHistory(text: string): ParsedHistory {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new HistoryFormatError(`not JSON (${(error as Error).message})`);
  }
  if (!isRecord(parsed) || parsed.format !== HISTORY_FORMAT) throw new HistoryFormatError(`not an ${HISTORY_FORMAT} document`);
  if (parsed.version !== HISTORY_VERSION)
    throw new HistoryFormatError(`version ${String(parsed.version)} is not supported (expected ${HISTORY_VERSION})`);
  if (!Array.isArray(parsed.servers) || !isCount(parsed.minuteFrom)) throw new HistoryFormatError('"servers" or "minuteFrom" is missing');
  let skipped = 0;
  const servers: ServerHistory[] = [];
  const buckets = (list: unknown): Map<number, Bucket> => {
    const map = new Map<number, Bucket>();
    for (const tuple of Array.isArray(list) ? list : []) {
      const bucket = fromTuple(tuple);
      if (bucket) map.set(bucket.start, bucket);
      else skipped += 1;
    }
    return map;
  };
  for (const entry of parsed.servers) {
    if (!isRecord(entry) || typeof entry.key !== 'string' || typeof entry.name !== 'string' || typeof entry.file !== 'string') {
      skipped += 1;
      continue;
    }
    servers.push({ key: entry.key, name: entry.name, file: entry.file, minutes: buckets(entry.m), hours: buckets(entry.h) });
  }
  return { servers, minuteFrom: parsed.minuteFrom, skipped };
}

/**
 * Encodes the history, pruning it first when the text would exceed `maxBytes`: minute detail goes hour by hour from
 * the oldest, then whole days of hourly buckets. Bounded: a few passes, each from an estimate of bytes per bucket.
 */
export function encodeWithinCap(
  recorder: HistoryRecorder,
  savedAt: number,
  maxBytes = HISTORY_MAX_BYTES,
): { text: string; pruned: number } {
  const text = encodeHistory(recorder, savedAt);
  return text.length > maxBytes ? pruneAndEncode(recorder, savedAt, maxBytes, text) : { text, pruned: 0 };
}

/** encodeWithinCap with the common case (under the cap) encoded in slices; pruning, rare, stays in one pass. */
export async function encodeWithinCapSliced(
  recorder: HistoryRecorder,
  savedAt: number,
  yieldNow: () => Promise<void>,
  maxBytes = HISTORY_MAX_BYTES,
): Promise<{ text: string; pruned: number }> {
  const text = await encodeHistorySliced(recorder, savedAt, yieldNow);
  return text.length > maxBytes ? pruneAndEncode(recorder, savedAt, maxBytes, text) : { text, pruned: 0 };
}

function pruneAndEncode(recorder: HistoryRecorder, savedAt: number, maxBytes: number, encoded: string): { text: string; pruned: number } {
  let text = encoded;
  let pruned = 0;
  for (let pass = 0; pass < 8 && text.length > maxBytes; pass += 1) {
    const servers = recorder.servers();
    const total = servers.reduce((sum, server) => sum + server.minutes.size + server.hours.size, 0);
    if (total === 0) break;
    // Aim under 80 % so the next few flushes do not prune again at once.
    const excessBuckets = Math.ceil((text.length - maxBytes * 0.8) / (text.length / total));
    const dropped = dropMinutes(recorder, servers, excessBuckets);
    pruned += dropped > 0 ? dropped : dropOldestDay(recorder, servers);
    text = encodeHistory(recorder, savedAt);
  }
  return { text, pruned };
}

function dropMinutes(recorder: HistoryRecorder, servers: readonly ServerHistory[], wanted: number): number {
  const perHour = new Map<number, number>();
  for (const server of servers) {
    for (const start of server.minutes.keys()) {
      const hour = floorTo(start, HOUR_MS);
      perHour.set(hour, (perHour.get(hour) ?? 0) + 1);
    }
  }
  let count = 0;
  let cut: number | null = null;
  for (const hour of [...perHour.keys()].sort((a, b) => a - b)) {
    count += perHour.get(hour) ?? 0;
    cut = hour + HOUR_MS;
    if (count >= wanted) break;
  }
  return cut === null ? 0 : recorder.dropMinutesBefore(cut);
}

function dropOldestDay(recorder: HistoryRecorder, servers: readonly ServerHistory[]): number {
  let oldest = Number.POSITIVE_INFINITY;
  for (const server of servers) for (const start of server.hours.keys()) oldest = Math.min(oldest, start);
  return Number.isFinite(oldest) ? recorder.dropHoursBefore(floorTo(oldest, DAY_MS) + DAY_MS) : 0;
}
