// Keeps the health series in step with the registry: one subscription, per-server bookkeeping, fan-out to sinks.

import type { ServerState, ServerStatus } from '../core/model';
import type { MonitorEvent, MonitorRegistry, Unsubscribe } from '../core/monitorTypes';
import { isHealthy } from '../core/healthy';
import {
  errorType,
  isViolation,
  labelsKey,
  probeContext,
  probeSeconds,
  serverLabels,
  type CounterKind,
  type ProbeContext,
  type ServerLabels,
} from './series';

/** A back end (prom-client, OpenTelemetry) fed by the tracker. Gauges are pulled from `samples()` when read. */
export interface MetricsSink {
  probe(
    labels: ServerLabels,
    method: string,
    outcome: string,
    seconds: number | undefined,
    errorType: string | undefined,
    context: ProbeContext,
  ): void;
  /** A connection (an MCP session) ended after `seconds`; `errorType` when it ended by a failure. */
  session?(labels: ServerLabels, seconds: number, errorType: string | undefined, context: ProbeContext): void;
  count(kind: CounterKind, labels: ServerLabels, by: number): void;
  /** The server is gone or its labels changed (era learned): drop every series of the old label set. */
  forget(labels: ServerLabels): void;
}

/** What the sinks read when scraped or exported: the samples, and revisions that say when they changed. */
export interface SampleSource {
  samples(): readonly ServerSample[];
  /** Changes whenever a sample's state or flapping flag changes, or the servers or their labels do. */
  stateRevision(): number;
  /** Changes whenever a last-probe timestamp changes, or the servers or their labels do. */
  probeRevision(): number;
}

/** A source for sinks made before the tracker they read (the tracker needs its sinks when it is made). */
export function lateSource(tracker: () => SampleSource): SampleSource {
  return {
    samples: () => tracker().samples(),
    stateRevision: () => tracker().stateRevision(),
    probeRevision: () => tracker().probeRevision(),
  };
}

export interface ServerSample {
  readonly labels: ServerLabels;
  readonly state: ServerState;
  readonly flapping: boolean;
  /** Answers keep taking longer than the server's slow threshold. */
  readonly slow: boolean;
  /** Wall clock of the last probe that settled, in seconds; null before the first. */
  readonly lastProbeSeconds: number | null;
}

interface Entry {
  labels: ServerLabels;
  key: string;
  state: ServerState;
  flapping: boolean;
  slow: boolean;
  lastProbeAt: number | null;
  restartsSeen: number;
  connects: number;
  context: ProbeContext;
  /** Wall clock when the current connection opened; null while there is none. */
  sessionStartedAt: number | null;
}

/** States in which the server holds an open connection (a session). */
const CONNECTED: ReadonlySet<ServerState> = new Set(['up', 'verifying', 'suspect']);

export interface TrackerOptions {
  /** Wall-clock milliseconds, for the last-probe timestamp. */
  readonly wall: () => number;
  /** The probe timeout, recorded as the duration of a probe that timed out. */
  readonly timeoutMs: number;
}

export class HealthTracker implements SampleSource {
  private readonly entries = new Map<string, Entry>();
  private readonly unsubscribe: Unsubscribe;
  private states = 0;
  private probes = 0;

  constructor(
    private readonly registry: MonitorRegistry,
    private readonly sinks: readonly MetricsSink[],
    private readonly options: TrackerOptions,
  ) {
    this.sync();
    this.unsubscribe = registry.onEvent((event) => this.onEvent(event));
  }

  samples(): ServerSample[] {
    return [...this.entries.values()].map((entry) => ({
      labels: entry.labels,
      state: entry.state,
      flapping: entry.flapping,
      slow: entry.slow,
      lastProbeSeconds: entry.lastProbeAt === null ? null : entry.lastProbeAt / 1000,
    }));
  }

  stateRevision(): number {
    return this.states;
  }

  probeRevision(): number {
    return this.probes;
  }

  /** Counts a change of one server's tools from the accepted baseline (the monitor's `tools-changed` event). */
  toolsChanged(id: string): void {
    const entry = this.entries.get(id);
    if (entry) this.count('toolsChanged', entry.labels, 1);
  }

  dispose(): void {
    this.unsubscribe();
  }

  private onEvent(event: MonitorEvent): void {
    switch (event.type) {
      case 'servers':
        this.sync();
        return;
      case 'state':
        this.onState(event.id, event.from, event.to, event.status);
        return;
      case 'probe': {
        const entry = this.entries.get(event.id);
        if (!entry) return;
        const { result } = event;
        // event.status is built on demand (percentiles); a probe needs none of it.
        entry.lastProbeAt = this.options.wall();
        this.probes += 1;
        const seconds = probeSeconds(result, this.options.timeoutMs);
        for (const sink of this.sinks)
          sink.probe(entry.labels, result.method, result.outcome, seconds, errorType(result.outcome), entry.context);
        if (isViolation(result.outcome)) this.count('violations', entry.labels, 1);
        return;
      }
      case 'tools-changed':
        this.toolsChanged(event.id);
        return;
      case 'status': {
        const entry = this.entries.get(event.id);
        if (!entry) return;
        // The slow and flapping flags change without a state change; mcp_health_healthy follows them.
        this.noteFlags(entry, event.status);
        // A down server retrying stays down (no state event): its attempts are announced here.
        if (event.reconnecting) this.count('reconnects', entry.labels, 1);
        return;
      }
      case 'stderr':
      case 'inventory':
        return;
    }
  }

  private onState(id: string, from: ServerState, to: ServerState, status: ServerStatus): void {
    const entry = this.entries.get(id) ?? this.add(status);
    this.relabel(entry, status);
    entry.context = probeContext(status.config.transport, status.protocolVersion);
    this.sessionChange(entry, from, to, status);
    entry.state = to;
    entry.flapping = status.flapping;
    entry.slow = status.slow === true;
    this.states += 1;
    if (status.restarts > entry.restartsSeen) {
      this.count('restarts', entry.labels, status.restarts - entry.restartsSeen);
      entry.restartsSeen = status.restarts;
    }
    if (to === 'connecting' || to === 'starting') {
      entry.connects += 1;
      if (entry.connects > 1) this.count('reconnects', entry.labels, 1);
    }
    // A handshake or discover answered against the protocol never reaches a probe: count it here.
    if ((from === 'connecting' || from === 'starting') && to === 'suspect' && status.lastError?.kind === 'protocol-violation') {
      this.count('violations', entry.labels, 1);
    }
  }

  private noteFlags(entry: Entry, status: ServerStatus): void {
    const slow = status.slow === true;
    if (entry.flapping === status.flapping && entry.slow === slow) return;
    entry.flapping = status.flapping;
    entry.slow = slow;
    this.states += 1;
  }

  /** Reconciles with the registry's server list: new servers appear, removed ones lose their series. */
  private sync(): void {
    const current = new Set<string>();
    for (const status of this.registry.list()) {
      current.add(status.config.id);
      const entry = this.entries.get(status.config.id);
      if (entry) {
        this.relabel(entry, status);
      } else {
        this.add(status);
      }
    }
    for (const [id, entry] of this.entries) {
      if (!current.has(id)) {
        this.endSession(entry, undefined);
        this.entries.delete(id);
        this.membershipChanged();
        for (const sink of this.sinks) sink.forget(entry.labels);
      }
    }
  }

  private add(status: ServerStatus): Entry {
    const labels = serverLabels(status);
    const entry: Entry = {
      labels,
      key: labelsKey(labels),
      state: status.state,
      flapping: status.flapping,
      slow: status.slow === true,
      lastProbeAt: status.lastProbeAt,
      restartsSeen: status.restarts,
      connects: status.state === 'idle' ? 0 : 1,
      context: probeContext(status.config.transport, status.protocolVersion),
      // A server already connected when the tracker starts: its session is timed from now, not from before.
      sessionStartedAt: CONNECTED.has(status.state) ? this.options.wall() : null,
    };
    this.entries.set(status.config.id, entry);
    this.membershipChanged();
    return entry;
  }

  /**
   * `mcp.client.session.duration`: a session starts when a connection opens (connecting -> up, verifying or suspect)
   * and ends when the server leaves those states; it ended with an error unless it was closed on purpose (disabled,
   * removed, consent withdrawn).
   */
  private sessionChange(entry: Entry, from: ServerState, to: ServerState, status: ServerStatus): void {
    if (CONNECTED.has(to)) {
      // verifying -> up, up -> suspect: the same connection.
      entry.sessionStartedAt ??= this.options.wall();
      return;
    }
    if (!CONNECTED.has(from)) return;
    if (entry.sessionStartedAt === null) return;
    const onPurpose = to === 'disabled' || to === 'untrusted' || to === 'needs-consent' || to === 'idle';
    this.endSession(entry, onPurpose ? undefined : (status.lastError?.kind ?? to));
  }

  private endSession(entry: Entry, errorType: string | undefined): void {
    if (entry.sessionStartedAt === null) return;
    const seconds = Math.max(0, (this.options.wall() - entry.sessionStartedAt) / 1000);
    entry.sessionStartedAt = null;
    for (const sink of this.sinks) sink.session?.(entry.labels, seconds, errorType, entry.context);
  }

  /** A config edit or a learned era changes the label set: the old series go, the new ones start from zero. */
  private relabel(entry: Entry, status: ServerStatus): void {
    const labels = serverLabels(status);
    const key = labelsKey(labels);
    if (key === entry.key) return;
    for (const sink of this.sinks) sink.forget(entry.labels);
    entry.labels = labels;
    entry.key = key;
    this.membershipChanged();
  }

  /** Every gauge lists every server: a server added, removed or relabelled changes them all. */
  private membershipChanged(): void {
    this.states += 1;
    this.probes += 1;
  }

  private count(kind: CounterKind, labels: ServerLabels, by: number): void {
    for (const sink of this.sinks) sink.count(kind, labels, by);
  }
}

/**
 * 1 only when up, not flapping and not slow: the one definition of healthy every view counts (src/present/states.ts),
 * so a crash-looping server never reads healthy between two crashes as `mcp_health_up` does.
 */
export function healthValue(sample: Pick<ServerSample, 'state' | 'flapping' | 'slow'>): number {
  return isHealthy(sample) ? 1 : 0;
}
