// Per-server history rolled up like an uptime monitor: minutely buckets for 24 h, hourly for 30 days. Time is
// allocated to buckets only for stretches this process observed; a gap (editor closed, CLI not running) is neither up
// nor down and stays out of every uptime denominator. Pure: the wall clock is injected.

import type { ProbeResult, ServerState } from '../model';
import { addRtt, DAY_MS, emptyBucket, mergeBucket, floorTo, HOUR_MS, MINUTE_MS, type Bucket } from './buckets';
import { classOf, type TimeClass } from './classify';

export const MINUTE_RETENTION_MS = DAY_MS;
export const HOUR_RETENTION_MS = 30 * DAY_MS;
/** Allocations remembered per server for a wake told late: a few state changes and settles' worth. */
const RECENT_STRETCHES = 8;

export interface ServerIdentity {
  /** Stable across reloads: the server id (`<config file>#<name>`), the key tool baselines are kept under too. */
  readonly key: string;
  readonly name: string;
  readonly file: string;
}

export interface ServerHistory extends ServerIdentity {
  readonly minutes: ReadonlyMap<number, Bucket>;
  readonly hours: ReadonlyMap<number, Bucket>;
}

export interface UptimeWindows {
  /** Percent of verified up time over observed time, 0..100; null when nothing was observed in the window. */
  readonly hour: number | null;
  readonly day: number | null;
  readonly week: number | null;
}

interface Track extends ServerIdentity {
  name: string;
  file: string;
  readonly minutes: Map<number, Bucket>;
  readonly hours: Map<number, Bucket>;
  open: { cls: Exclude<TimeClass, 'none'>; since: number } | null;
  /** The last few stretches allocated, so a wake told late can take the gap back out of them. */
  recent: { cls: 'up' | 'down'; from: number; to: number }[];
  last: ServerState | null;
}

export class HistoryRecorder {
  private readonly tracks = new Map<string, Track>();
  /** Hour-aligned: minute buckets cover [minuteFrom, now); earlier time is answered from hourly buckets. */
  private minuteFromMs: number;
  private readonly changeListeners = new Set<() => void>();

  constructor(private readonly now: () => number) {
    this.minuteFromMs = floorTo(now() - MINUTE_RETENTION_MS, HOUR_MS);
  }

  get minuteFrom(): number {
    return this.minuteFromMs;
  }

  /** Whether anything is kept or under way for this server. */
  has(key: string): boolean {
    return this.tracks.has(key);
  }

  /** Called whenever something was recorded; the store uses it to know there is something to write. */
  onDidRecord(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Restores what a file held; open stretches are never restored (the time since was not observed). */
  load(servers: readonly ServerHistory[], minuteFrom: number): void {
    this.minuteFromMs = Math.max(this.minuteFromMs, floorTo(minuteFrom, HOUR_MS));
    for (const server of servers) {
      const track = this.track(server);
      // Loading may finish after the first events of this session were recorded: the file's buckets add to them.
      for (const [start, bucket] of server.minutes) if (start >= this.minuteFromMs) mergeBucket(this.bucket(track.minutes, start), bucket);
      for (const [start, bucket] of server.hours) mergeBucket(this.bucket(track.hours, start), bucket);
    }
    this.prune();
  }

  state(identity: ServerIdentity, to: ServerState, consecutiveFailures: number, changed: boolean): void {
    const now = this.now();
    const track = this.track(identity);
    const cls = classOf(to, consecutiveFailures);
    const open = track.open;
    if (open?.cls === 'pending') {
      // Up by a handshake only, and it ended before a probe answered: part of an outage, or nothing observed.
      if (cls === 'down') this.allocate(track, 'down', open.since, now);
    } else if (open) {
      this.allocate(track, open.cls, open.since, now);
    }
    // up -> up (the same state announced again) stays verified; any other change starts a new stretch now.
    // `verifying` ends in `up` only once probes answered on that connection: it is proven already.
    const proven = cls === 'pending' && (open?.cls === 'up' || track.last === 'verifying');
    track.open = proven ? { cls: 'up', since: now } : cls === 'none' ? null : { cls, since: now };
    track.last = to;
    if (changed) {
      this.bucketsAt(track, now).forEach((bucket) => {
        bucket.stateChanges += 1;
      });
    }
    this.changed();
  }

  probe(identity: ServerIdentity, result: ProbeResult): void {
    const now = this.now();
    const track = this.track(identity);
    const ok = result.outcome === 'ok';
    for (const bucket of this.bucketsAt(track, now)) {
      if (ok) {
        bucket.probesOk += 1;
        if (result.rttMs !== undefined) addRtt(bucket, result.rttMs);
      } else {
        bucket.probesFailed += 1;
      }
    }
    // The first answered probe on a connection proves it was up from the moment it connected.
    if (ok && track.open?.cls === 'pending') track.open = { cls: 'up', since: track.open.since };
    this.changed();
  }

  /** The server is gone (removed from its file): its open stretch ends now. Its buckets stay until they age out. */
  stop(key: string): void {
    const track = this.tracks.get(key);
    if (!track?.open) return;
    if (track.open.cls !== 'pending') this.allocate(track, track.open.cls, track.open.since, this.now());
    track.open = null;
    track.last = null;
    this.changed();
  }

  /**
   * The machine slept from `from` to `to` (wall): like a closed editor, that time is neither up nor down. Every stretch
   * under way is allocated up to the gap and goes on after it. The wake is usually told before anything after the gap,
   * but a settle on a timer of its own (a file write, a view asking for uptime) or waiting I/O (a connection that
   * closed while asleep) may come first and allocate part of the gap: that part is taken back out.
   */
  unobserved(from: number, to: number): void {
    if (!(to > from)) return;
    for (const track of this.tracks.values()) {
      for (const stretch of track.recent) {
        const start = Math.max(stretch.from, from);
        const end = Math.min(stretch.to, to);
        if (end > start) this.allocate(track, stretch.cls, start, end, -1);
      }
      track.recent = [];
      const open = track.open;
      if (!open) continue;
      if (open.cls !== 'pending' && open.since < from) this.allocate(track, open.cls, open.since, from);
      // A stretch up by its handshake only is kept pending from the wake on: the probe that proves it came after it.
      open.since = Math.max(open.since, to);
    }
    this.changed();
  }

  /** Servers with a stretch under way. */
  openKeys(): string[] {
    return [...this.tracks.values()].filter((track) => track.open !== null).map((track) => track.key);
  }

  /** Allocates every open stretch up to now, so buckets (and a file written next) hold the time observed so far. */
  settle(): void {
    const now = this.now();
    for (const track of this.tracks.values()) this.settleTrack(track, now);
    this.prune();
  }

  /** Cheap enough to call per rendered row: one pass over one server's buckets, nothing pruned. */
  uptime(key: string): UptimeWindows {
    const track = this.tracks.get(key);
    if (!track) return { hour: null, day: null, week: null };
    const now = this.now();
    this.settleTrack(track, now);
    return this.windows(track, now);
  }

  servers(): readonly ServerHistory[] {
    return [...this.tracks.values()].map(({ key, name, file, minutes, hours }) => ({ key, name, file, minutes, hours }));
  }

  /** Forgets everything recorded; stretches under way start again now. */
  clear(): void {
    const now = this.now();
    for (const [key, track] of this.tracks) {
      track.minutes.clear();
      track.hours.clear();
      track.recent = [];
      if (track.open) track.open.since = now;
      else this.tracks.delete(key);
    }
    this.changed();
  }

  /**
   * Drops minute detail older than `hourStart` (hour-aligned): the hours before it are still there, rolled up. For
   * the size cap; returns how many minute buckets went.
   */
  dropMinutesBefore(hourStart: number): number {
    // The hour under way keeps its minutes: without them the last hour would be answered from one coarse bucket.
    const from = Math.min(floorTo(hourStart, HOUR_MS), floorTo(this.now(), HOUR_MS));
    if (from <= this.minuteFromMs) return 0;
    this.minuteFromMs = from;
    return this.prune().minutes;
  }

  /** Drops hourly buckets older than `time`, for the size cap once minute detail is gone too. */
  dropHoursBefore(time: number): number {
    let dropped = 0;
    for (const track of this.tracks.values()) {
      for (const start of track.hours.keys()) {
        if (start < time) {
          track.hours.delete(start);
          dropped += 1;
        }
      }
    }
    return dropped;
  }

  /** Age pruning: minutes past 24 h (kept to the hour), hours past 30 days; servers with nothing left and nothing open. */
  prune(): { minutes: number; hours: number } {
    const now = this.now();
    this.minuteFromMs = Math.max(this.minuteFromMs, floorTo(now - MINUTE_RETENTION_MS, HOUR_MS));
    let minutes = 0;
    let hours = 0;
    for (const [key, track] of this.tracks) {
      for (const start of track.minutes.keys()) {
        if (start < this.minuteFromMs) {
          track.minutes.delete(start);
          minutes += 1;
        }
      }
      for (const start of track.hours.keys()) {
        if (start < now - HOUR_RETENTION_MS) {
          track.hours.delete(start);
          hours += 1;
        }
      }
      if (!track.open && track.minutes.size === 0 && track.hours.size === 0) this.tracks.delete(key);
    }
    return { minutes, hours };
  }

  private settleTrack(track: Track, now: number): void {
    if (track.open && track.open.cls !== 'pending' && now > track.open.since) {
      this.allocate(track, track.open.cls, track.open.since, now);
      track.open.since = now;
    }
  }

  /** The three windows in one pass: minute buckets where kept, hourly ones for what lies before them. */
  private windows(track: Track, now: number): UptimeWindows {
    const starts = [now - HOUR_MS, now - DAY_MS, now - 7 * DAY_MS];
    const up = [0, 0, 0];
    const down = [0, 0, 0];
    const add = (index: number, bucket: Bucket) => {
      up[index]! += bucket.upMs;
      down[index]! += bucket.downMs;
    };
    const minuteStarts = starts.map((start) => Math.max(floorTo(start, MINUTE_MS), this.minuteFromMs));
    for (const bucket of track.minutes.values()) {
      for (let i = 0; i < 3; i++) if (bucket.start >= minuteStarts[i]!) add(i, bucket);
    }
    const hourStarts = starts.map((start) => (start < this.minuteFromMs ? floorTo(start, HOUR_MS) : Number.POSITIVE_INFINITY));
    for (const bucket of track.hours.values()) {
      if (bucket.start >= this.minuteFromMs) continue;
      for (let i = 0; i < 3; i++) if (bucket.start >= hourStarts[i]!) add(i, bucket);
    }
    const percent = (i: number) => (up[i]! + down[i]! > 0 ? (up[i]! / (up[i]! + down[i]!)) * 100 : null);
    return { hour: percent(0), day: percent(1), week: percent(2) };
  }

  /** Splits [from, to) at minute and hour boundaries; only retained time is walked, so the loop stays bounded. */
  private allocate(track: Track, cls: 'up' | 'down', from: number, to: number, sign: 1 | -1 = 1): void {
    const now = this.now();
    if (sign > 0 && to > from) {
      track.recent.push({ cls, from, to });
      if (track.recent.length > RECENT_STRETCHES) track.recent.shift();
    }
    const field = cls === 'up' ? 'upMs' : 'downMs';
    const hourFloor = Math.max(from, now - HOUR_RETENTION_MS);
    for (let t = hourFloor; t < to;) {
      const end = Math.min(to, floorTo(t, HOUR_MS) + HOUR_MS);
      this.bucket(track.hours, floorTo(t, HOUR_MS))[field] += sign * (end - t);
      t = end;
    }
    for (let t = Math.max(from, this.minuteFromMs); t < to;) {
      const end = Math.min(to, floorTo(t, MINUTE_MS) + MINUTE_MS);
      this.bucket(track.minutes, floorTo(t, MINUTE_MS))[field] += sign * (end - t);
      t = end;
    }
  }

  private bucketsAt(track: Track, time: number): Bucket[] {
    return [this.bucket(track.minutes, floorTo(time, MINUTE_MS)), this.bucket(track.hours, floorTo(time, HOUR_MS))];
  }

  private bucket(map: Map<number, Bucket>, start: number): Bucket {
    let bucket = map.get(start);
    if (!bucket) {
      bucket = emptyBucket(start);
      map.set(start, bucket);
    }
    return bucket;
  }

  private track(identity: ServerIdentity): Track {
    let track = this.tracks.get(identity.key);
    if (!track) {
      track = {
        key: identity.key,
        name: identity.name,
        file: identity.file,
        minutes: new Map(),
        hours: new Map(),
        open: null,
        last: null,
        recent: [],
      };
      this.tracks.set(identity.key, track);
    } else {
      // Renamed display data follows the latest definition; the key is what identifies it.
      track.name = identity.name;
      track.file = identity.file;
    }
    return track;
  }

  private changed(): void {
    for (const listener of [...this.changeListeners]) listener();
  }
}
