// A local channel between processes of the same user: newline-delimited JSON over a Unix domain socket (a named pipe
// on Windows), never a TCP port. Used by the editor windows that share one monitor for user-level servers and by
// `mcp-health guard` to publish its status; the caller picks the topic (or the full path) and the message shapes.
//
// API, in short:
//   channelDirectory()              the per-user directory: $XDG_RUNTIME_DIR/mcp-health, else ~/.cache/mcp-health/run
//   channelPath(topic, dir?)        <dir>/<topic>.sock, or \\.\pipe\mcp-health-<user>-<topic> on Windows
//   listenChannel(path, handlers)   binds the path; resolves to a ChannelServer, or to undefined when another live
//                                   process already holds it (the path doubles as an election: the first binder leads)
//     server.broadcast(msg) / peer.send(msg) / server.peers / server.dispose()
//   connectChannel(path, handlers)  connects; rejects when nobody listens; then reports every message and one close
//     client.send(msg) / client.dispose()      (with `reconnect`, a dropped connection is retried before close)
//
// Who may connect: the directory is created mode 0700 and the socket chmod 0600, so only the same user (and root) can
// reach it. On Windows the pipe gets Node's default ACL (the creator, SYSTEM and administrators have full access).
// Who may be connected to: before every connect (and reconnect) the directory and the socket file are checked with
// lstat: a real directory and a real socket, owned by this user, with no group or other permission. A socket file is
// owned by the process that bound it, and nobody else can replace it in a directory only we may write, so this stands
// in for the peer's uid. (SO_PEERCRED would ask the kernel about the peer itself, but Node has no API for it and a
// native module is not worth it here.) A refusal rejects with ChannelRefusedError, whose message names the path.
//
// Robustness:
//  - a socket file left by a crashed process answers no connect (ECONNREFUSED): it is unlinked and the bind retried;
//    binds and such removals happen under an exclusive lock file (<path>.lock, holding the pid; a dead holder's lock
//    is removed), so a fresh socket another process is binding at that instant is never taken for a stale one;
//  - a line that is not a JSON object is dropped (reported through onGarbage) and the stream goes on; a line longer
//    than maxLineBytes means the peer cannot be trusted: its connection is closed;
//  - a peer that stops reading is cut off once its unsent output passes maxQueuedBytes, so one stuck reader cannot
//    grow this process's memory;
//  - dispose() closes every socket, the listener (Node unlinks the socket file) and any pending reconnect timer.

import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { chmodSync, linkSync, lstatSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';

export type ChannelMessage = Record<string, unknown>;

export interface ChannelLimits {
  /** A line (one message) longer than this closes the connection. Default 4 MiB. */
  maxLineBytes?: number;
  /** Output a peer has not read yet, beyond which that peer is dropped. Default 16 MiB. */
  maxQueuedBytes?: number;
}

const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/** Waiting for another process's bind (or take-over) to finish: up to about 5 s. */
const LOCK_ATTEMPTS = 100;
const LOCK_RETRY_MS = 25;
const PROBE_TIMEOUT_MS = 1000;
const isWindows = process.platform === 'win32';
const TOPIC = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function channelDirectory(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime && runtime.startsWith('/') ? join(runtime, 'mcp-health') : join(home, '.cache', 'mcp-health', 'run');
}

export function channelPath(topic: string, directory: string = channelDirectory()): string {
  if (!TOPIC.test(topic)) throw new Error(`invalid channel topic: ${JSON.stringify(topic)}`);
  if (isWindows) return `\\\\.\\pipe\\mcp-health-${safeUserName()}-${topic}`;
  return join(directory, `${topic}.sock`);
}

function safeUserName(): string {
  try {
    return userInfo().username.replace(/[^A-Za-z0-9._-]/g, '_');
  } catch {
    return 'user';
  }
}

/** Creates the channel directory private to this user, tightening it if it already exists with a looser mode. */
export function ensurePrivateDirectory(directory: string): void {
  if (isWindows) return;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const stat = statSync(directory);
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    throw new Error(`${directory} belongs to another user; refusing to use it for a private channel`);
  }
  if ((stat.mode & 0o777) !== 0o700) chmodSync(directory, 0o700);
}

/** A channel path another user owns or can write: never connected to. */
export class ChannelRefusedError extends Error {
  readonly code = 'ECHANNELREFUSED';
}

/**
 * Throws ChannelRefusedError unless `path`'s directory and `path` itself are this user's and closed to everyone else
 * (a directory, a socket; lstat, so a symlink planted in their place is refused too). No-op on Windows (pipes).
 */
export function verifyPrivateChannel(path: string): void {
  if (isWindows || typeof process.getuid !== 'function') return;
  const uid = process.getuid();
  const check = (target: string, kind: 'directory' | 'socket'): void => {
    let stat;
    try {
      stat = lstatSync(target);
    } catch {
      return; // absent: connect fails with ENOENT, as for nobody listening
    }
    const isKind = kind === 'directory' ? stat.isDirectory() : stat.isSocket();
    const problem = !isKind
      ? `is not a ${kind}${stat.isSymbolicLink() ? ' (a symbolic link)' : ''}`
      : stat.uid !== uid
        ? `belongs to uid ${stat.uid}, not to this user (uid ${uid})`
        : (stat.mode & 0o077) !== 0
          ? `has mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}: other users could read or replace it`
          : null;
    if (problem) throw new ChannelRefusedError(`refusing the local channel ${path}: ${target} ${problem}`);
  };
  check(dirnameOf(path), 'directory');
  check(path, 'socket');
}

// ---- framing ----------------------------------------------------------------------------------------------------

interface FrameSink {
  message(message: ChannelMessage): void;
  garbage(preview: string): void;
  overflow(): void;
}

/** Splits a byte stream into JSON-object lines, holding at most maxLineBytes of an unfinished line. */
class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private dead = false;

  constructor(
    private readonly sink: FrameSink,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (!this.dead) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      const line = this.pending.length === 0 ? chunk.subarray(start, newline) : Buffer.concat([...this.pending, chunk.subarray(start, newline)]);
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
      if (line.length > this.maxLineBytes) return this.overflow();
      this.emit(line);
    }
    if (this.dead || start >= chunk.length) return;
    this.pending.push(chunk.subarray(start));
    this.pendingBytes += chunk.length - start;
    if (this.pendingBytes > this.maxLineBytes) this.overflow();
  }

  private overflow(): void {
    this.dead = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.sink.overflow();
  }

  private emit(line: Buffer): void {
    const text = line.toString('utf8').trim();
    if (text === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.sink.garbage(text.slice(0, 120));
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return this.sink.garbage(text.slice(0, 120));
    this.sink.message(parsed as ChannelMessage);
  }
}

function encode(message: ChannelMessage): string {
  // JSON.stringify never emits a raw newline (it escapes them inside strings), so one message is one line.
  return `${JSON.stringify(message)}\n`;
}

// ---- server -----------------------------------------------------------------------------------------------------

export interface ChannelPeer {
  readonly id: number;
  /** False when the peer is gone or was dropped for not reading. */
  send(message: ChannelMessage): boolean;
  close(): void;
}

/** Test seams: awaited at the two points of a bind where another process's step can interleave. */
export interface ChannelBindPauses {
  /** After reading a lock's holder and finding it dead, before removing that lock. */
  afterStaleLockRead?(): Promise<void>;
  /** After a socket file failed to answer, before removing it as stale. */
  beforeStaleSocketRemoval?(): Promise<void>;
}

export interface ChannelServerHandlers extends ChannelLimits {
  readonly pauses?: ChannelBindPauses;
  onConnect?(peer: ChannelPeer): void;
  onMessage?(peer: ChannelPeer, message: ChannelMessage): void;
  onDisconnect?(peer: ChannelPeer): void;
  onGarbage?(peer: ChannelPeer, preview: string): void;
}

export interface ChannelServer {
  readonly path: string;
  readonly peers: readonly ChannelPeer[];
  broadcast(message: ChannelMessage): void;
  dispose(): Promise<void>;
}

/**
 * Binds `path`. Resolves to undefined when a live process already listens there (someone else holds the channel).
 * A socket file whose owner died is removed first.
 */
export async function listenChannel(path: string, handlers: ChannelServerHandlers = {}): Promise<ChannelServer | undefined> {
  if (isWindows) {
    // A pipe vanishes with its owner, so "in use" always means alive, and creating one is atomic.
    const server = createServer();
    const bound = await bind(server, path);
    if (bound === 'ok') return new Listener(server, path, handlers);
    if (bound === 'in-use') return undefined;
    throw bound;
  }
  ensurePrivateDirectory(dirnameOf(path));
  const lock = `${path}.lock`;
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (await takeLock(lock, handlers.pauses)) {
      try {
        return await bindOrTakeOver(path, handlers);
      } finally {
        releaseLock(lock);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS * (1 + Math.random())));
  }
  throw new Error(`${lock} stayed locked; another process may be stuck binding ${path}`);
}

/**
 * Under the lock, so binds and stale-socket removals of all processes are serialised: without it one process could
 * probe another's socket in the instant between its bind() and listen() (refused, so "stale") and unlink it, or a
 * reused inode number could pass for the stale file, leaving two listeners that each believe they lead.
 */
async function bindOrTakeOver(path: string, handlers: ChannelServerHandlers): Promise<ChannelServer | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const server = createServer();
    const bound = await bind(server, path);
    if (bound === 'ok') {
      chmodSync(path, 0o600);
      return new Listener(server, path, handlers);
    }
    if (bound !== 'in-use') throw bound;
    const probed = inodeOf(path);
    if (await answers(path)) return undefined;
    await handlers.pauses?.beforeStaleSocketRemoval?.();
    // Stale: left by a process that died (no one accepts on it). Removed only if it is still the very file that did not
    // answer: should the lock ever be held twice, a live socket bound meanwhile at this path is never taken for it.
    if (probed === undefined || inodeOf(path) !== probed) continue;
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
  }
  return undefined;
}

/**
 * An exclusive lock file holding our pid. One left by a dead process is broken (and the caller retries): moved aside
 * atomically and checked, so of several processes that found the same dead holder only one removes it, and a fresh
 * lock taken meanwhile by a live process is put back rather than deleted (deleting it by name let two processes hold
 * the lock at once, then remove each other's socket as stale: two leaders).
 */
async function takeLock(lock: string, pauses: ChannelBindPauses | undefined): Promise<boolean> {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let content: string;
  try {
    content = readFileSync(lock, 'utf8');
  } catch {
    return false; // released meanwhile
  }
  const holder = Number(content);
  // An empty file is a lock being written right now: its holder is alive.
  if (Number.isInteger(holder) && holder > 0 && !processAlive(holder)) {
    await pauses?.afterStaleLockRead?.();
    breakStaleLock(lock, content);
  }
  return false;
}

let staleLocksBroken = 0;

function breakStaleLock(lock: string, staleContent: string): void {
  // Unique among the processes breaking the same lock (the pid) and within this one (the counter); not a secret, so it
  // needs no crypto, which a guard would otherwise load only for this.
  const aside = `${lock}.stale-${process.pid}-${++staleLocksBroken}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // another process broke it first
  }
  let moved: string | undefined;
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    // Unreadable: treat as what we meant to remove.
  }
  if (moved !== undefined && moved !== staleContent) {
    // A live process's lock, taken after the stale one was already broken: give it back (link fails only if the name
    // was taken again in between, by a process that then holds it in its own right).
    try {
      linkSync(aside, lock);
    } catch {
      // Taken again meanwhile.
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // Nothing to clean.
  }
}

function inodeOf(path: string): number | undefined {
  try {
    return lstatSync(path).ino;
  } catch {
    return undefined;
  }
}

function releaseLock(lock: string): void {
  try {
    unlinkSync(lock);
  } catch {
    // Removed as stale by another process after a very long hold; nothing to do.
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by someone else (a reused pid): the lock file is ours, so treat it as held.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function dirnameOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

function bind(server: Server, path: string): Promise<'ok' | 'in-use' | Error> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      server.close();
      resolve(error.code === 'EADDRINUSE' ? 'in-use' : error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve('ok');
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(path);
  });
}

/** True when something accepts a connection on `path` within a second. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const done = (alive: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(alive);
    };
    // A listener too busy to accept within the timeout is still alive: treating it as stale would steal its path.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    socket.once('connect', () => done(true));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}

class Listener implements ChannelServer {
  private readonly live = new Map<number, Peer>();
  private nextId = 1;
  private disposed: Promise<void> | undefined;

  constructor(
    private readonly server: Server,
    readonly path: string,
    private readonly handlers: ChannelServerHandlers,
  ) {
    server.on('connection', (socket) => this.accept(socket));
    // A listener error after binding (rare: the fd was closed under us) ends the channel like a dispose.
    server.on('error', () => void this.dispose());
  }

  get peers(): readonly ChannelPeer[] {
    return [...this.live.values()];
  }

  broadcast(message: ChannelMessage): void {
    const line = encode(message);
    for (const peer of this.live.values()) peer.write(line);
  }

  private accept(socket: Socket): void {
    if (this.disposed) return void socket.destroy();
    const peer = new Peer(this.nextId++, socket, this.handlers.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES);
    this.live.set(peer.id, peer);
    const framer = new LineFramer(
      {
        message: (message) => this.handlers.onMessage?.(peer, message),
        garbage: (preview) => this.handlers.onGarbage?.(peer, preview),
        overflow: () => socket.destroy(),
      },
      this.handlers.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
    );
    socket.on('data', (chunk: Buffer) => framer.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      this.live.delete(peer.id);
      if (!this.disposed) this.handlers.onDisconnect?.(peer);
    });
    this.handlers.onConnect?.(peer);
  }

  dispose(): Promise<void> {
    this.disposed ??= new Promise<void>((resolve) => {
      for (const peer of this.live.values()) peer.close();
      this.live.clear();
      // Node removes the socket file when a Unix-socket server closes.
      this.server.close(() => resolve());
    });
    return this.disposed;
  }
}

class Peer implements ChannelPeer {
  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly maxQueuedBytes: number,
  ) {}

  send(message: ChannelMessage): boolean {
    return this.write(encode(message));
  }

  write(line: string): boolean {
    if (this.socket.destroyed) return false;
    if (this.socket.writableLength > this.maxQueuedBytes) {
      this.socket.destroy();
      return false;
    }
    this.socket.write(line);
    return true;
  }

  close(): void {
    this.socket.destroy();
  }
}

// ---- client -----------------------------------------------------------------------------------------------------

export type ChannelCloseReason = 'disposed' | 'closed' | 'overflow' | 'error';

export interface ChannelClientHandlers extends ChannelLimits {
  onMessage(message: ChannelMessage): void;
  /** Called once, when the connection is gone for good (after any reconnect attempts). Not called after dispose(). */
  onClose?(reason: ChannelCloseReason): void;
  onGarbage?(preview: string): void;
  /** Called after a dropped connection was re-established: state the peer sent before may have to be asked again. */
  onReconnect?(): void;
  /** Retry a dropped connection this many times, delayMs apart, before reporting the close. */
  reconnect?: { attempts: number; delayMs: number };
}

export interface ChannelClient {
  readonly path: string;
  send(message: ChannelMessage): boolean;
  dispose(): void;
}

/**
 * Connects to a listening channel; rejects (ENOENT, ECONNREFUSED...) when nobody listens on `path`, and with
 * ChannelRefusedError when the directory or socket is another user's or open to others (checked on every connect).
 */
export async function connectChannel(path: string, handlers: ChannelClientHandlers): Promise<ChannelClient> {
  const client = new Connection(path, handlers);
  await client.open();
  return client;
}

class Connection implements ChannelClient {
  private socket: Socket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;
  private retriesLeft: number;

  constructor(
    readonly path: string,
    private readonly handlers: ChannelClientHandlers,
  ) {
    this.retriesLeft = handlers.reconnect?.attempts ?? 0;
  }

  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      try {
        verifyPrivateChannel(this.path);
      } catch (error) {
        return reject(error);
      }
      const socket = createConnection(this.path);
      let overflowed = false;
      const framer = new LineFramer(
        {
          message: (message) => {
            if (!this.disposed) this.handlers.onMessage(message);
          },
          garbage: (preview) => this.handlers.onGarbage?.(preview),
          overflow: () => {
            overflowed = true;
            socket.destroy();
          },
        },
        this.handlers.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      );
      let connected = false;
      let failed: NodeJS.ErrnoException | undefined;
      socket.once('connect', () => {
        connected = true;
        this.socket = socket;
        this.retriesLeft = this.handlers.reconnect?.attempts ?? 0;
        resolve();
      });
      socket.on('data', (chunk: Buffer) => framer.push(chunk));
      socket.on('error', (error: NodeJS.ErrnoException) => {
        failed = error;
        socket.destroy();
      });
      socket.once('close', () => {
        if (this.socket === socket) this.socket = undefined;
        if (!connected) return reject(failed ?? new Error(`could not connect to ${this.path}`));
        if (this.disposed) return;
        this.dropped(overflowed ? 'overflow' : failed ? 'error' : 'closed');
      });
    });
  }

  private dropped(reason: ChannelCloseReason): void {
    if (reason === 'overflow' || this.retriesLeft <= 0) return this.handlers.onClose?.(reason);
    this.retriesLeft--;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.disposed) return;
      this.open().then(
        () => {
          if (this.disposed) this.socket?.destroy();
          else this.handlers.onReconnect?.();
        },
        () => {
          if (!this.disposed) this.dropped(reason);
        },
      );
    }, this.handlers.reconnect?.delayMs ?? 0);
  }

  send(message: ChannelMessage): boolean {
    const socket = this.socket;
    if (!socket || socket.destroyed) return false;
    if (socket.writableLength > (this.handlers.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES)) return false;
    socket.write(encode(message));
    return true;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.socket?.destroy();
    this.socket = undefined;
  }
}
