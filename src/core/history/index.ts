// Server history across reloads: roll-up buckets, uptime from verified time, the file document and export records.

export { DAY_MS, floorTo, floorToMinute, HOUR_MS, MINUTE_MS, type Bucket } from './buckets';
export { classOf, type TimeClass } from './classify';
export {
  encodeHistory,
  encodeHistorySliced,
  encodeWithinCap,
  encodeWithinCapSliced,
  HISTORY_FORMAT,
  HISTORY_MAX_BYTES,
  HISTORY_VERSION,
  HistoryFormatError,
  parseHistory,
  type ParsedHistory,
} from './document';
export { identityOf, recordHistory } from './feed';
export {
  closedMinuteRecords,
  csv,
  historyRecords,
  jsonLines,
  RECORD_COLUMNS,
  recordOf,
  type HistoryRecord,
  type Resolution,
} from './records';
export {
  HistoryRecorder,
  HOUR_RETENTION_MS,
  MINUTE_RETENTION_MS,
  type ServerHistory,
  type ServerIdentity,
  type UptimeWindows,
} from './recorder';
