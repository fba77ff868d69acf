// The records "Export History…" writes and `watch --history FILE` appends: one per bucket, the same shape in JSON
// lines and CSV, so a spreadsheet, jq or a log pipeline read either without knowing our file format.

import { HOUR_MS, MINUTE_MS, type Bucket } from './buckets';
import type { ServerHistory, ServerIdentity } from './recorder';

export type Resolution = 'minute' | 'hour';

export interface HistoryRecord {
  readonly type: 'history';
  readonly resolution: Resolution;
  readonly server: string;
  readonly key: string;
  readonly file: string;
  /** ISO 8601, UTC. */
  readonly start: string;
  readonly end: string;
  readonly probesOk: number;
  readonly probesFailed: number;
  readonly rttAvgMs: number | null;
  readonly rttMinMs: number | null;
  readonly rttMaxMs: number | null;
  readonly upMs: number;
  readonly downMs: number;
  /** Verified up time over observed time in this bucket; null when no time was observed. */
  readonly uptimePercent: number | null;
  readonly stateChanges: number;
}

export const RECORD_COLUMNS = [
  'type',
  'resolution',
  'server',
  'key',
  'file',
  'start',
  'end',
  'probesOk',
  'probesFailed',
  'rttAvgMs',
  'rttMinMs',
  'rttMaxMs',
  'upMs',
  'downMs',
  'uptimePercent',
  'stateChanges',
] as const satisfies readonly (keyof HistoryRecord)[];

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export function recordOf(server: ServerIdentity, bucket: Bucket, resolution: Resolution): HistoryRecord {
  const observed = bucket.upMs + bucket.downMs;
  return {
    type: 'history',
    resolution,
    server: server.name,
    key: server.key,
    file: server.file,
    start: new Date(bucket.start).toISOString(),
    end: new Date(bucket.start + (resolution === 'minute' ? MINUTE_MS : HOUR_MS)).toISOString(),
    probesOk: bucket.probesOk,
    probesFailed: bucket.probesFailed,
    rttAvgMs: bucket.rttCount > 0 ? round(bucket.rttSum / bucket.rttCount) : null,
    rttMinMs: bucket.rttMin === null ? null : round(bucket.rttMin),
    rttMaxMs: bucket.rttMax === null ? null : round(bucket.rttMax),
    upMs: Math.round(bucket.upMs),
    downMs: Math.round(bucket.downMs),
    uptimePercent: observed > 0 ? round((bucket.upMs / observed) * 100, 3) : null,
    stateChanges: bucket.stateChanges,
  };
}

/** Every bucket kept: the hourly ones (30 days), then the minutely ones (24 h), each in time order per server. */
export function historyRecords(servers: readonly ServerHistory[]): HistoryRecord[] {
  const records: HistoryRecord[] = [];
  const sorted = [...servers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.key < b.key ? -1 : 1));
  for (const resolution of ['hour', 'minute'] as const) {
    for (const server of sorted) {
      const buckets = [...(resolution === 'hour' ? server.hours : server.minutes).values()].sort((a, b) => a.start - b.start);
      for (const bucket of buckets) records.push(recordOf(server, bucket, resolution));
    }
  }
  return records;
}

export function jsonLines(records: readonly HistoryRecord[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join('');
}

/**
 * RFC 4180 CSV. A cell a spreadsheet would read as a formula (a server named `=HYPERLINK(...)`) is prefixed with an
 * apostrophe: names come from config files, which may come from a cloned repository. Excel in locales whose list
 * separator is `;` splits a line at every `;`, quotes or not, so a formula right after a `;` inside a cell gets the
 * apostrophe too, and such a cell is quoted.
 */
export function csv(records: readonly HistoryRecord[]): string {
  const cell = (value: unknown): string => {
    if (value === null || value === undefined) return '';
    let text = String(value);
    if (typeof value === 'string') text = text.replace(/(^|;)(?=[=+\-@\t\r])/g, "$1'");
    return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = [RECORD_COLUMNS.join(',')];
  for (const record of records) lines.push(RECORD_COLUMNS.map((column) => cell(record[column])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Minute buckets that ended at or before `now` and start at or after `after`: what `watch --history` appends next. */
export function closedMinuteRecords(servers: readonly ServerHistory[], after: number, now: number): HistoryRecord[] {
  const records: HistoryRecord[] = [];
  for (const server of servers) {
    for (const bucket of server.minutes.values()) {
      if (bucket.start >= after && bucket.start + MINUTE_MS <= now) records.push(recordOf(server, bucket, 'minute'));
    }
  }
  return records.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.server < b.server ? -1 : 1));
}
