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

import type { Server, Socket } from 'node:net';
import { createConnection } from 'node:net';
import { bindChannel, type ChannelBindPauses } from './channelBind';
import { encode, JsonLineFramer, type ChannelMessage } from './channelFraming';
import { verifyPrivateChannel } from './channelPaths';

export type { ChannelBindPauses } from './channelBind';
export type { ChannelMessage } from './channelFraming';
export { ChannelRefusedError, channelDirectory, channelPath, ensurePrivateDirectory, verifyPrivateChannel } from './channelPaths';

export interface ChannelLimits {
  /** A line (one message) longer than this closes the connection. Default 4 MiB. */
  maxLineBytes?: number;
  /** Output a peer has not read yet, beyond which that peer is dropped. Default 16 MiB. */
  maxQueuedBytes?: number;
}

const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;

// ---- server -----------------------------------------------------------------------------------------------------

export interface ChannelPeer {
  readonly id: number;
  /** False when the peer is gone or was dropped for not reading. */
  send(message: ChannelMessage): boolean;
  close(): void;
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
  const server = await bindChannel(path, handlers.pauses);
  return server ? new Listener(server, path, handlers) : undefined;
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
    const framer = new JsonLineFramer(
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
      const framer = new JsonLineFramer(
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
