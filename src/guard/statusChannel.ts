// Publishes a running guard's status on the same-user local channel (a 0600 Unix socket, no TCP port), so that
// `mcp-health check` and the extension can show the real connection's health without starting a copy of the server.
// They read it with src/mcp/guardClient.ts.

import { GUARD_PROBE_RESULT_TYPE, GUARD_RESTART_RESULT_TYPE, GUARD_STATUS_TYPE, type GuardReport } from '../core/guardReport';
import { isSecretName, redactText } from '../core/redact';
import { GUARD_TOPIC_PREFIX } from '../mcp/guardClient';
import { channelPath, listenChannel, type ChannelServer } from '../mcp/localChannel';
import type { GuardStatus, ManualProbe } from './guardSession';

export { GUARD_PROBE_RESULT_TYPE, GUARD_RESTART_RESULT_TYPE, GUARD_STATUS_TYPE };
// The reading side moved to src/mcp/guardClient.ts (front ends read status without importing the guard); kept here for
// the guard's own tests and callers.
export {
  GUARD_TOPIC_PREFIX,
  probeGuards,
  readGuardStatuses,
  restartGuards,
  type DropLog,
  type GuardProbeAnswer,
  type GuardRestartAnswer,
} from '../mcp/guardClient';

/** What a peer on the channel may ask a guard to do, besides reading its status. */
export interface GuardControlHandlers {
  probe(): Promise<ManualProbe>;
  restart(): { readonly restarting: boolean; readonly detail: string };
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
    ? {
        ...status.lastError,
        message: redactText(status.lastError.message, secrets),
        stderrTail: redactText(status.lastError.stderrTail, secrets),
      }
    : null;
  return { ...status, target: redactText(status.target, secrets), lastError };
}

/**
 * Listens on guard-<pid>; every peer gets the status when it connects and whenever it sends {"type":"status"}.
 * {"type":"probe"} probes the upstream now and answers guard-probe-result; {"type":"restart"} asks for a restart of
 * the upstream and answers guard-restart-result. The socket is the same-user channel (0600 in a 0700 directory): only
 * this user's processes can ask, as only they can start or kill the guard itself.
 */
export async function publishGuardStatus(
  snapshot: () => PublishedGuardStatus,
  control?: GuardControlHandlers,
): Promise<ChannelServer | undefined> {
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
