// Publishes a running guard's status on the same-user local channel (a 0600 Unix socket, no TCP port), so that
// `mcp-health check` and the extension can show the real connection's health without starting a copy of the server.

import { readdirSync } from 'node:fs';
import type { GuardControl, GuardReport } from '../core/guardReport';
import { isSecretName, redactText } from '../core/redact';
import { channelDirectory, channelPath, connectChannel, listenChannel, type ChannelServer } from '../mcp/localChannel';
import type { GuardStatus, ManualProbe } from './guardSession';

export const GUARD_TOPIC_PREFIX = 'guard-';
export const GUARD_STATUS_TYPE = 'guard-status';
export const GUARD_PROBE_RESULT_TYPE = 'guard-probe-result';
export const GUARD_RESTART_RESULT_TYPE = 'guard-restart-result';

/** What a peer on the channel may ask a guard to do, besides reading its status. */
export interface GuardControlHandlers {
  probe(): Promise<ManualProbe>;
  restart(): { readonly restarting: boolean; readonly detail: string };
}

export interface GuardProbeAnswer {
  readonly guardPid: number;
  readonly probe: ManualProbe;
}

export interface GuardRestartAnswer {
  readonly guardPid: number;
  readonly restarting: boolean;
  readonly detail: string;
}

export interface PublishedGuardStatus extends GuardStatus {
  readonly type: typeof GUARD_STATUS_TYPE;
  readonly name: string;
  readonly guardPid: number;
  readonly target: string;
}

/** Values that must never leave the guard: secret-looking environment variables and every header value. */
export function guardSecrets(env: NodeJS.ProcessEnv, headers: Readonly<Record<string, string>>): string[] {
  const fromEnv = Object.entries(env).flatMap(([name, value]) => (value && isSecretName(name) ? [value] : []));
  return [...fromEnv, ...Object.values(headers)];
}

export function redactStatus(status: PublishedGuardStatus, secrets: readonly string[]): PublishedGuardStatus {
  const lastError = status.lastError
    ? { ...status.lastError, message: redactText(status.lastError.message, secrets), stderrTail: redactText(status.lastError.stderrTail, secrets) }
    : null;
  return { ...status, target: redactText(status.target, secrets), lastError };
}

/**
 * Listens on guard-<pid>; every peer gets the status when it connects and whenever it sends {"type":"status"}.
 * {"type":"probe"} probes the upstream now and answers guard-probe-result; {"type":"restart"} asks for a restart of
 * the upstream and answers guard-restart-result. The socket is the same-user channel (0600 in a 0700 directory): only
 * this user's processes can ask, as only they can start or kill the guard itself.
 */
export async function publishGuardStatus(snapshot: () => PublishedGuardStatus, control?: GuardControlHandlers): Promise<ChannelServer | undefined> {
  const path = channelPath(`${GUARD_TOPIC_PREFIX}${process.pid}`);
  return listenChannel(path, {
    onConnect: (peer) => peer.send({ ...snapshot() }),
    onMessage: (peer, message) => {
      if (message.type === 'status') peer.send({ ...snapshot() });
      else if (message.type === 'probe' && control) {
        void control.probe().then((probe) => peer.send({ type: GUARD_PROBE_RESULT_TYPE, guardPid: process.pid, probe: { ...probe } }));
      } else if (message.type === 'restart' && control) {
        peer.send({ type: GUARD_RESTART_RESULT_TYPE, guardPid: process.pid, ...control.restart() });
      }
    },
  });
}

// The extension and the CLI read a published status through the pure core type: this fails to compile if they drift.
const _isReport = (status: PublishedGuardStatus): GuardReport => status;
void _isReport;

/** Asks every running guard of this user for its status; guards that do not answer in time are left out. */
export async function readGuardStatuses(timeoutMs = 1000, directory = channelDirectory()): Promise<PublishedGuardStatus[]> {
  const answers = await Promise.all(guardSockets(directory).map((path) => askOne(path, timeoutMs)));
  return answers.filter((answer) => answer !== null) as unknown as PublishedGuardStatus[];
}

/** Probes the upstream of every running guard named `name`, now; one answer per guard that answered in time. */
export async function probeGuards(name: string, timeoutMs: number, directory = channelDirectory()): Promise<GuardProbeAnswer[]> {
  return askGuards<GuardProbeAnswer>(name, 'probe', GUARD_PROBE_RESULT_TYPE, timeoutMs, directory);
}

/** Asks every running guard named `name` to restart its upstream; one answer per guard. */
export async function restartGuards(name: string, timeoutMs: number, directory = channelDirectory()): Promise<GuardRestartAnswer[]> {
  return askGuards<GuardRestartAnswer>(name, 'restart', GUARD_RESTART_RESULT_TYPE, timeoutMs, directory);
}

/** Long enough for a guard whose --timeout-ms was raised well above the 5 s default to answer with its timeout. */
const PROBE_WAIT_MS = 30_000;
const RESTART_WAIT_MS = 2_000;

/** Ping and Reconnect on guarded entries, for the registry (through GuardPoller). */
export const channelGuardControl: GuardControl = {
  probe: (name) => probeGuards(name, PROBE_WAIT_MS),
  restart: (name) => restartGuards(name, RESTART_WAIT_MS),
};

async function askGuards<T>(name: string, request: string, answerType: string, timeoutMs: number, directory: string): Promise<T[]> {
  const answers = await Promise.all(guardSockets(directory).map((path) => askOne(path, timeoutMs, { name, request, answerType })));
  return answers.filter((answer) => answer !== null) as unknown as T[];
}

function guardSockets(directory: string): string[] {
  try {
    return readdirSync(directory).filter((entry) => entry.startsWith(GUARD_TOPIC_PREFIX) && entry.endsWith('.sock')).map((entry) => `${directory}/${entry}`);
  } catch {
    return [];
  }
}

/**
 * Reads one guard's status; with `ask`, and if the guard carries that name, sends the request and resolves with its
 * answer instead. null when the guard does not answer in time, goes away, or is another server's.
 */
function askOne(path: string, timeoutMs: number, ask?: { name: string; request: string; answerType: string }): Promise<Record<string, unknown> | null> {
  return new Promise((resolve) => {
    let client: { send(message: Record<string, unknown>): void; dispose(): void } | undefined;
    let pendingRequest = false;
    let done = false;
    const finish = (value: Record<string, unknown> | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client?.dispose();
      resolve(value);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    connectChannel(path, {
      onMessage: (message) => {
        if (!ask) {
          if (message.type === GUARD_STATUS_TYPE) finish(message);
          return;
        }
        if (message.type === GUARD_STATUS_TYPE) {
          if (message.name !== ask.name) finish(null);
          else if (client) client.send({ type: ask.request });
          else pendingRequest = true;
        } else if (message.type === ask.answerType) {
          finish(message);
        }
      },
      onClose: () => finish(null),
    }).then(
      (connected) => {
        client = connected;
        if (done) connected.dispose();
        else if (pendingRequest && ask) connected.send({ type: ask.request });
      },
      () => finish(null),
    );
  });
}
