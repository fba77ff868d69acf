// Publishes a running guard's status on the same-user local channel (a 0600 Unix socket, no TCP port), so that
// `mcp-health check` and the extension can show the real connection's health without starting a copy of the server.

import { readdirSync } from 'node:fs';
import { parseWith, type Schema } from '../core/channelSchema';
import {
  GUARD_PROBE_RESULT_TYPE,
  GUARD_RESTART_RESULT_TYPE,
  GUARD_STATUS_TYPE,
  guardProbeAnswerSchema,
  guardReportSchema,
  guardRestartAnswerSchema,
  type GuardControl,
  type GuardReport,
} from '../core/guardReport';
import { isSecretName, redactText } from '../core/redact';
import { ChannelRefusedError, channelDirectory, channelPath, connectChannel, listenChannel, type ChannelServer } from '../mcp/localChannel';
import type { ProbeResult } from '../core/model';
import type { GuardStatus, ManualProbe } from './guardSession';

export const GUARD_TOPIC_PREFIX = 'guard-';
export { GUARD_PROBE_RESULT_TYPE, GUARD_RESTART_RESULT_TYPE, GUARD_STATUS_TYPE };

/** Where a reader says it dropped a message that matched no schema: one line per message. */
export type DropLog = (line: string) => void;
const logToStderr: DropLog = (line) => void process.stderr.write(`mcp-health: ${line}\n`);

/** What a peer on the channel may ask a guard to do, besides reading its status. */
export interface GuardControlHandlers {
  probe(): Promise<ManualProbe>;
  restart(): { readonly restarting: boolean; readonly detail: string };
}

export interface GuardProbeAnswer {
  readonly guardPid: number;
  /** As read back by MCP Health: checked against the monitor's probe result shape (ManualProbe is a subset). */
  readonly probe: ProbeResult;
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

/**
 * Asks every running guard of this user for its status; guards that do not answer in time are left out, and so are
 * reports that do not match the schema (an older, newer or broken guard), each with one line to `log`.
 */
export async function readGuardStatuses(timeoutMs = 1000, directory = channelDirectory(), log: DropLog = logToStderr): Promise<GuardReport[]> {
  const answers = await Promise.all(guardSockets(directory).map((path) => askOne(path, timeoutMs, log)));
  return answers.filter((answer): answer is GuardReport => answer !== null);
}

/** Probes the upstream of every running guard named `name`, now; one answer per guard that answered in time. */
export async function probeGuards(name: string, timeoutMs: number, directory = channelDirectory(), log: DropLog = logToStderr): Promise<GuardProbeAnswer[]> {
  return askGuards(name, { request: 'probe', answer: guardProbeAnswerSchema, answerType: GUARD_PROBE_RESULT_TYPE }, timeoutMs, directory, log);
}

/** Asks every running guard named `name` to restart its upstream; one answer per guard. */
export async function restartGuards(name: string, timeoutMs: number, directory = channelDirectory(), log: DropLog = logToStderr): Promise<GuardRestartAnswer[]> {
  return askGuards(name, { request: 'restart', answer: guardRestartAnswerSchema, answerType: GUARD_RESTART_RESULT_TYPE }, timeoutMs, directory, log);
}

/** Long enough for a guard whose --timeout-ms was raised well above the 5 s default to answer with its timeout. */
const PROBE_WAIT_MS = 30_000;
const RESTART_WAIT_MS = 2_000;

/** Ping and Reconnect on guarded entries, for the registry (through GuardPoller). */
export const channelGuardControl: GuardControl = {
  probe: (name) => probeGuards(name, PROBE_WAIT_MS),
  restart: (name) => restartGuards(name, RESTART_WAIT_MS),
};

interface Ask<T> {
  readonly request: string;
  readonly answerType: string;
  readonly answer: Schema<T>;
}

async function askGuards<T>(name: string, ask: Ask<T>, timeoutMs: number, directory: string, log: DropLog): Promise<T[]> {
  const answers: (T | null)[] = await Promise.all(guardSockets(directory).map((path) => askOne(path, timeoutMs, log, { name, ...ask })));
  return answers.filter((answer): answer is T => answer !== null);
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
 * answer instead. null when the guard does not answer in time, goes away, is another server's, or sends a message
 * that matches no schema (dropped with one line to `log`).
 */
function askOne(path: string, timeoutMs: number, log: DropLog): Promise<GuardReport | null>;
function askOne<T>(path: string, timeoutMs: number, log: DropLog, ask: Ask<T> & { readonly name: string }): Promise<T | null>;
function askOne<T>(path: string, timeoutMs: number, log: DropLog, ask?: Ask<T> & { readonly name: string }): Promise<GuardReport | T | null> {
  return new Promise((resolve) => {
    let client: { send(message: Record<string, unknown>): void; dispose(): void } | undefined;
    let pendingRequest = false;
    let done = false;
    const finish = (value: GuardReport | T | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client?.dispose();
      resolve(value);
    };
    const drop = (what: string, problem: string) => {
      log(`ignored a ${what} from ${path} that does not match its schema (${problem})`);
      finish(null);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    connectChannel(path, {
      onMessage: (message) => {
        if (message.type === GUARD_STATUS_TYPE) {
          const report = parseWith(guardReportSchema, message);
          if (!report.ok) return drop(GUARD_STATUS_TYPE, report.problem);
          if (!ask) finish(report.value);
          else if (report.value.name !== ask.name) finish(null);
          else if (client) client.send({ type: ask.request });
          else pendingRequest = true;
        } else if (ask && message.type === ask.answerType) {
          const answer = parseWith(ask.answer, message);
          if (!answer.ok) return drop(ask.answerType, answer.problem);
          finish(answer.value);
        } else {
          drop('message', `unknown type ${JSON.stringify(String(message.type).slice(0, 40))}`);
        }
      },
      onGarbage: (preview) => log(`ignored a line from ${path} that is not a JSON object: ${JSON.stringify(preview.slice(0, 80))}`),
      onClose: () => finish(null),
    }).then(
      (connected) => {
        client = connected;
        if (done) connected.dispose();
        else if (pendingRequest && ask) connected.send({ type: ask.request });
      },
      (error: unknown) => {
        // Another user's socket or directory: say so (a guard silently missing would be a false "not running").
        if (error instanceof ChannelRefusedError) log(error.message);
        finish(null);
      },
    );
  });
}
