// One copy per machine for user-level servers: the windows of one editor share a local channel. Whoever binds its
// path first leads: it runs the user-level servers and publishes their (redacted) status; the others follow, show that
// status and forward Ping Now / Reconnect. When the leader goes, a follower binds the path and starts them.
//
// Wire messages (newline JSON on the local channel, same user only):
//   leader -> followers  {t:'snapshot', servers:{[id]:RemoteStatus}}   on connect and whenever the set changes
//                        {t:'status', id, status}                       on each state or probe event
//                        {t:'result', req, result?}                     answer to a forwarded action
//                        {t:'bye'}                                      servers closed, the path is about to be free
//   follower -> leader   {t:'ping'|'reconnect', id, req}
// No config travels: each window reads the same user-level files and matches servers by id.

import { createHash } from 'node:crypto';
import {
  array,
  boolean,
  either,
  integer,
  nullable,
  number,
  object,
  oneOf,
  optional,
  parseWith,
  record,
  string,
  unknownValue,
  type Schema,
} from '../core/channelSchema';
import type { Logger } from '../core/logger';
import type { ProbeResult, ServerConfig, ServerStatus } from '../core/model';
import type { MonitorEvent, Unsubscribe } from '../core/monitorTypes';
import { toRemote, type RemoteStatus, type StatusSource } from '../core/monitor/statusSource';
import {
  ChannelRefusedError,
  connectChannel,
  listenChannel,
  type ChannelClient,
  type ChannelMessage,
  type ChannelServer,
} from './localChannel';
import { ledgerPath, processStartTime, readLedger, spawnRecordOf, stillRunning, writeLedger, type SpawnRecord } from './childLedger';
import { reapOrphans, type ProcessIdentity } from './orphans';

export interface SharedRegistry {
  list(): readonly ServerStatus[];
  onEvent(listener: (event: MonitorEvent) => void): Unsubscribe;
  setStatusSource(source: StatusSource | null): void;
  pingNow(id?: string): Promise<ReadonlyMap<string, ProbeResult>>;
  reconnect(id?: string): Promise<void>;
}

export interface SharedServersOptions {
  readonly path: string;
  readonly registry: SharedRegistry;
  readonly covers: (config: ServerConfig) => boolean;
  /** How views name the leader: "another VS Code window". */
  readonly label: string;
  readonly logger: Logger;
  readonly onRoleChange?: (role: Role) => void;
  /** Bound on a forwarded action (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Grace before SIGKILL when reaping a crashed leader's servers (default 3 s). */
  readonly reapGraceMs?: number;
}

export type Role = 'leader' | 'follower' | 'stopped';

/**
 * The channel topic for one editor installation: windows that read the same user-level files (same user data dir)
 * share it; another installation, or a test's private code-server, gets its own.
 */
export function sharedServersTopic(userDataDir: string): string {
  return `user-servers-${createHash('sha256').update(userDataDir).digest('hex').slice(0, 16)}`;
}

const ELECTION_ATTEMPTS = 20;
const ELECTION_DELAY_MS = 150;

export class SharedServers {
  private role: Role = 'stopped';
  private server: ChannelServer | undefined;
  private client: ChannelClient | undefined;
  private follower: FollowerSource | undefined;
  private unsubscribe: Unsubscribe | undefined;
  private disposed = false;
  private electing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /**
   * Server processes every leader we followed reported, kept across leaders: when a leader dies during a take-over
   * (before its followers learned anything from it), the processes of the one before are still ours to end.
   */
  private readonly leaderChildren = new Map<number, ProcessIdentity>();
  /** While leading: our own server processes, as written to the ledger a successor reads after a crash. */
  private recorded = new Map<number, SpawnRecord>();

  constructor(private readonly options: SharedServersOptions) {}

  get currentRole(): Role {
    return this.role;
  }

  /** Resolves once this window knows whether it leads or follows; call before the registry starts monitoring. */
  start(): Promise<void> {
    return this.elect(false);
  }

  private elect(afterCrash: boolean): Promise<void> {
    this.electing ??= this.runElection(afterCrash).finally(() => (this.electing = undefined));
    return this.electing;
  }

  private async runElection(afterCrash: boolean): Promise<void> {
    for (let attempt = 0; attempt < ELECTION_ATTEMPTS && !this.disposed; attempt++) {
      let server: ChannelServer | undefined;
      try {
        server = await listenChannel(this.options.path, {
          onConnect: (peer) => peer.send(this.snapshot()),
          onMessage: (peer, message) => void this.serve(message).then((reply) => reply && peer.send(reply)),
          onGarbage: (_peer, preview) => this.options.logger.debug(`shared servers: ignored a malformed message: ${preview}`),
        });
      } catch (error) {
        // A bind lock held too long or a directory we may not use: maybe someone leads anyway, else retry.
        this.options.logger.warn(`shared servers: cannot bind ${this.options.path}: ${String(error)}`);
      }
      if (this.disposed) return void (await server?.dispose());
      if (server) return this.lead(server, afterCrash ? [...this.leaderChildren.values()] : []);
      this.options.logger.debug(`shared servers: ${this.options.path} is held by another window`);
      if (await this.follow()) return;
      this.options.logger.debug('shared servers: could not follow either; electing again');
      await this.delay(ELECTION_DELAY_MS * (1 + Math.random()));
    }
    if (!this.disposed) {
      this.options.logger.warn('shared servers: no leading window answered; running user-level servers in this window');
      await this.lead(undefined, []);
    }
  }

  private async lead(server: ChannelServer | undefined, orphans: readonly ProcessIdentity[]): Promise<void> {
    this.dropFollower();
    this.leaderChildren.clear();
    this.server = server;
    this.options.logger.debug(`shared servers: bound the channel; ${orphans.length} process(es) of the old leader to check`);
    if (orphans.length > 0) {
      // The old leader died without closing its servers: end them before starting our own copies. Only those it
      // recorded starting itself, still running with that start time and command line: a pid from a peer alone is
      // never signalled.
      const ledger = readLedger(ledgerPath(this.options.path), (message) => this.options.logger.warn(`shared servers: ${message}`));
      const ours: SpawnRecord[] = [];
      for (const { pid, startTime } of orphans) {
        const record = ledger.find((entry) => entry.pid === pid && entry.startTime === startTime);
        if (record && stillRunning(record)) ours.push(record);
        else if (!record && processStartTime(pid) === startTime) {
          this.options.logger.warn(
            `shared servers: not ending pid ${pid}: the old leader reported it, but no window of this installation recorded starting it`,
          );
        }
      }
      const reaped = await reapOrphans(ours, this.options.reapGraceMs ?? 3_000);
      if (reaped.length > 0) this.options.logger.info(`shared servers: ended ${reaped.length} server process(es) left by a crashed window`);
    }
    if (this.disposed) return;
    this.setRole('leader');
    // Subscribed first, so the snapshot of the take-over itself reaches followers that connected meanwhile.
    if (server) {
      this.recorded = new Map();
      this.unsubscribe = this.options.registry.onEvent((event) => this.publish(event));
    }
    this.options.registry.setStatusSource(null);
  }

  private async follow(): Promise<boolean> {
    const source = new FollowerSource(
      this.options.label,
      this.options.covers,
      this.options.requestTimeoutMs ?? 30_000,
      (identity) => this.leaderChildren.set(identity.pid, identity),
      (problem) =>
        this.options.logger.warn(`shared servers: dropped a message from the leading window that matches no schema (${problem})`),
    );
    let client: ChannelClient;
    try {
      client = await connectChannel(this.options.path, {
        onMessage: (message) => source.receive(message),
        onClose: () => this.leaderGone(source),
      });
    } catch (error) {
      // Another user's socket or directory is never followed (its "statuses" and pids would be theirs to choose).
      if (error instanceof ChannelRefusedError) this.options.logger.warn(`shared servers: ${error.message}`);
      return false; // else the leader just went away (or left a stale socket): elect again
    }
    if (this.disposed) {
      client.dispose();
      return true;
    }
    source.attach(client);
    this.dropFollower();
    this.client = client;
    this.follower = source;
    this.setRole('follower');
    this.options.registry.setStatusSource(source);
    return true;
  }

  private leaderGone(source: FollowerSource): void {
    if (this.disposed || this.follower !== source) return;
    source.failPending();
    const crashed = !source.saidBye;
    this.options.logger.info(
      `shared servers: the leading window ${crashed ? 'went away without closing its servers' : 'closed'}; electing a new one`,
    );
    // The mirror stays in place until someone leads, so nothing starts twice meanwhile.
    void this.elect(crashed);
  }

  private async serve(raw: ChannelMessage): Promise<ChannelMessage | undefined> {
    const parsed = parseWith(FOLLOWER_MESSAGE, raw);
    if (!parsed.ok) {
      this.options.logger.debug(`shared servers: dropped a message from a following window that matches no schema (${parsed.problem})`);
      return undefined;
    }
    const { t, id, req } = parsed.value;
    if (t === 'ping') {
      const results = await this.options.registry.pingNow(id);
      const result = results.get(id);
      return result ? { t: 'result', req, result } : { t: 'result', req };
    }
    if (t === 'reconnect') {
      await this.options.registry.reconnect(id);
      return { t: 'result', req };
    }
    return undefined;
  }

  private snapshot(): ChannelMessage {
    const servers: Record<string, RemoteStatus> = {};
    for (const status of this.options.registry.list()) {
      if (this.options.covers(status.config) && status.watchedElsewhere === undefined) servers[status.config.id] = toRemote(status);
    }
    return { t: 'snapshot', servers };
  }

  private publish(event: MonitorEvent): void {
    if (!this.server) return;
    if (event.type !== 'stderr') this.recordChildren();
    // After a wake every uptime changed (the gap left it): the whole snapshot goes, as for a change of servers.
    if (event.type === 'servers' || event.type === 'wake') return this.server.broadcast(this.snapshot());
    if (event.type === 'stderr') return;
    const status = event.status;
    if (this.options.covers(status.config)) this.server.broadcast({ t: 'status', id: event.id, status: toRemote(status) });
  }

  /**
   * Writes our own server processes to the ledger when the set changes: a child is recorded as it first shows a pid
   * (just after its spawn), and kept while it still runs as recorded (one being replaced may outlive its status).
   */
  private recordChildren(): void {
    const next = new Map<number, SpawnRecord>();
    for (const status of this.options.registry.list()) {
      const pid = status.pid;
      if (pid === null || !this.options.covers(status.config) || status.watchedElsewhere !== undefined || status.guarded) continue;
      const record = this.recorded.get(pid) ?? spawnRecordOf(pid);
      if (record) next.set(pid, record);
    }
    for (const [pid, record] of this.recorded) if (!next.has(pid) && stillRunning(record)) next.set(pid, record);
    const same = next.size === this.recorded.size && [...next.keys()].every((pid) => this.recorded.has(pid));
    if (same) return;
    this.recorded = next;
    try {
      writeLedger(ledgerPath(this.options.path), [...next.values()]);
    } catch (error) {
      this.options.logger.warn(`shared servers: cannot record the server processes in ${ledgerPath(this.options.path)}: ${String(error)}`);
    }
  }

  private setRole(role: Role): void {
    if (this.role === role) return;
    this.role = role;
    this.options.logger.info(`shared servers: this window ${role === 'leader' ? 'runs' : 'follows'} the user-level servers`);
    this.options.onRoleChange?.(role);
  }

  private dropFollower(): void {
    this.client?.dispose();
    this.client = undefined;
    this.follower?.failPending();
    this.follower = undefined;
  }

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        resolve();
      }, ms);
    });
  }

  /**
   * Call after the registry has closed its servers: followers are told the servers are down (`bye`) and only then
   * is the path released, so the next leader never starts a copy while ours still runs.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
    this.dropFollower();
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.broadcast({ t: 'bye' });
      await server.dispose();
    }
    this.role = 'stopped';
  }
}

class FollowerSource implements StatusSource {
  private statuses = new Map<string, RemoteStatus>();
  /** The leader's server processes, recorded while it is alive (pid + start time) so a crash can be cleaned up safely. */
  private readonly known = new Map<number, ProcessIdentity>();
  private readonly listeners = new Set<() => void>();
  private readonly pending = new Map<number, { resolve(message: ChannelMessage | undefined): void; timer: NodeJS.Timeout }>();
  private client: ChannelClient | undefined;
  private nextReq = 1;
  saidBye = false;

  constructor(
    readonly label: string,
    readonly covers: (config: ServerConfig) => boolean,
    private readonly requestTimeoutMs: number,
    private readonly onChild: (identity: ProcessIdentity) => void,
    private readonly onDrop: (problem: string) => void,
  ) {}

  attach(client: ChannelClient): void {
    this.client = client;
  }

  status(id: string): RemoteStatus | undefined {
    return this.statuses.get(id);
  }

  onDidChange(listener: () => void): Unsubscribe {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  receive(raw: ChannelMessage): void {
    const parsed = leaderMessage(raw);
    if (!parsed.ok) return this.onDrop(parsed.problem);
    const message = parsed.value;
    switch (message.t) {
      case 'snapshot': {
        this.statuses = new Map(Object.entries(message.servers));
        this.remember();
        return this.changed();
      }
      case 'status':
        this.statuses.set(message.id, message.status);
        this.remember();
        return this.changed();
      case 'result': {
        const entry = typeof message.req === 'number' ? this.pending.get(message.req) : undefined;
        if (!entry) return;
        clearTimeout(entry.timer);
        this.pending.delete(message.req as number);
        return entry.resolve(raw);
      }
      case 'bye':
        this.saidBye = true;
        return;
    }
  }

  private remember(): void {
    for (const status of this.statuses.values()) {
      if (status.pid === null || this.known.get(status.pid) !== undefined) continue;
      const startTime = processStartTime(status.pid);
      if (startTime === undefined) continue;
      const identity = { pid: status.pid, startTime };
      this.known.set(status.pid, identity);
      this.onChild(identity);
    }
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  async pingNow(id: string): Promise<ProbeResult | null> {
    const reply = await this.request('ping', id);
    const result = reply?.result;
    return result !== null && typeof result === 'object' && typeof (result as ProbeResult).outcome === 'string'
      ? (result as ProbeResult)
      : null;
  }

  async reconnect(id: string): Promise<void> {
    await this.request('reconnect', id);
  }

  private request(t: 'ping' | 'reconnect', id: string): Promise<ChannelMessage | undefined> {
    const req = this.nextReq++;
    if (!this.client?.send({ t, id, req })) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(req);
        resolve(undefined);
      }, this.requestTimeoutMs);
      this.pending.set(req, { resolve, timer });
    });
  }

  failPending(): void {
    for (const { resolve, timer } of this.pending.values()) {
      clearTimeout(timer);
      resolve(undefined);
    }
    this.pending.clear();
  }
}

// One schema per wire message. A status is checked field by field for what every view reads (the rest of a
// RemoteStatus is optional detail the views test for before use); a message that matches none is dropped, logged once.
const nullableNumber = nullable(number);
const remoteStatusSchema: Schema<RemoteStatus> = object<
  Pick<
    RemoteStatus,
    | 'state'
    | 'era'
    | 'protocolVersion'
    | 'lastRttMs'
    | 'lastError'
    | 'lastProbeAt'
    | 'lastStateChangeAt'
    | 'consecutiveFailures'
    | 'restarts'
    | 'flapping'
    | 'nonConformant'
    | 'stats'
    | 'stderrTail'
    | 'pid'
    | 'serverInfo'
  >
>({
  state: oneOf(
    'idle',
    'connecting',
    'verifying',
    'up',
    'down',
    'suspect',
    'auth-required',
    'needs-input',
    'config-error',
    'disabled',
    'untrusted',
    'needs-consent',
  ),
  era: nullable(oneOf('handshake', 'modern')),
  protocolVersion: nullable(string),
  serverInfo: nullable(object({ name: string, version: optional(string) })) as Schema<RemoteStatus['serverInfo']>,
  lastRttMs: nullableNumber,
  lastError: nullable(object({ kind: string, message: string })) as Schema<RemoteStatus['lastError']>,
  lastProbeAt: nullableNumber,
  lastStateChangeAt: nullableNumber,
  consecutiveFailures: integer,
  restarts: integer,
  flapping: boolean,
  nonConformant: boolean,
  stats: object({ recent: array(object({ at: number, outcome: string })), restartTimes: optional(array(number)) }) as unknown as Schema<
    RemoteStatus['stats']
  >,
  stderrTail: string,
  pid: nullable(integer),
}) as unknown as Schema<RemoteStatus>;

const requestId = either(integer, string);
const LEADER_MESSAGES = {
  snapshot: object<{ t: 'snapshot'; servers: Readonly<Record<string, RemoteStatus>> }>({
    t: oneOf('snapshot'),
    servers: record(remoteStatusSchema),
  }),
  status: object<{ t: 'status'; id: string; status: RemoteStatus }>({ t: oneOf('status'), id: string, status: remoteStatusSchema }),
  result: object<{ t: 'result'; req: number | string; result: unknown }>({ t: oneOf('result'), req: requestId, result: unknownValue }),
  bye: object<{ t: 'bye' }>({ t: oneOf('bye') }),
} as const;
const FOLLOWER_MESSAGE = object<{ t: 'ping' | 'reconnect'; id: string; req: number | string }>({
  t: oneOf('ping', 'reconnect'),
  id: string,
  req: requestId,
});

type LeaderMessage =
  | { t: 'snapshot'; servers: Readonly<Record<string, RemoteStatus>> }
  | { t: 'status'; id: string; status: RemoteStatus }
  | { t: 'result'; req: number | string; result: unknown }
  | { t: 'bye' };

/** The message as one of the leader's, or the reason it is none. */
function leaderMessage(message: ChannelMessage): { ok: true; value: LeaderMessage } | { ok: false; problem: string } {
  const t = message.t;
  if (typeof t !== 'string' || !Object.hasOwn(LEADER_MESSAGES, t))
    return { ok: false, problem: `unknown message type ${JSON.stringify(String(t).slice(0, 40))}` };
  return parseWith(LEADER_MESSAGES[t as keyof typeof LEADER_MESSAGES] as Schema<LeaderMessage>, message);
}
