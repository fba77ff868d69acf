// Publishes a running guard's status on the same-user local channel (a 0600 Unix socket, no TCP port), so that
// `mcp-health check` and the extension can show the real connection's health without starting a copy of the server.

import { readdirSync } from 'node:fs';
import type { GuardReport } from '../core/guardReport';
import { isSecretName, redactText } from '../core/redact';
import { channelDirectory, channelPath, connectChannel, listenChannel, type ChannelServer } from '../mcp/localChannel';
import type { GuardStatus } from './guardSession';

export const GUARD_TOPIC_PREFIX = 'guard-';
export const GUARD_STATUS_TYPE = 'guard-status';

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

/** Listens on guard-<pid>; every peer gets the status when it connects and whenever it sends {"type":"status"}. */
export async function publishGuardStatus(snapshot: () => PublishedGuardStatus): Promise<ChannelServer | undefined> {
  const path = channelPath(`${GUARD_TOPIC_PREFIX}${process.pid}`);
  return listenChannel(path, {
    onConnect: (peer) => peer.send({ ...snapshot() }),
    onMessage: (peer, message) => {
      if (message.type === 'status') peer.send({ ...snapshot() });
    },
  });
}

// The extension and the CLI read a published status through the pure core type: this fails to compile if they drift.
const _isReport = (status: PublishedGuardStatus): GuardReport => status;
void _isReport;

/** Asks every running guard of this user for its status; guards that do not answer in time are left out. */
export async function readGuardStatuses(timeoutMs = 1000, directory = channelDirectory()): Promise<PublishedGuardStatus[]> {
  let entries: string[];
  try {
    entries = readdirSync(directory).filter((entry) => entry.startsWith(GUARD_TOPIC_PREFIX) && entry.endsWith('.sock'));
  } catch {
    return [];
  }
  const answers = await Promise.all(entries.map((entry) => askOne(`${directory}/${entry}`, timeoutMs)));
  return answers.filter((answer): answer is PublishedGuardStatus => answer !== null);
}

function askOne(path: string, timeoutMs: number): Promise<PublishedGuardStatus | null> {
  return new Promise((resolve) => {
    let client: { dispose(): void } | undefined;
    let done = false;
    const finish = (value: PublishedGuardStatus | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client?.dispose();
      resolve(value);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    connectChannel(path, {
      onMessage: (message) => {
        if (message.type === GUARD_STATUS_TYPE) finish(message as unknown as PublishedGuardStatus);
      },
      onClose: () => finish(null),
    }).then(
      (connected) => {
        client = connected;
        if (done) connected.dispose();
      },
      () => finish(null),
    );
  });
}
