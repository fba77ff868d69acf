// Reads the running guards of this user over the local channel: their status for `mcp-health check` and the
// extension, and Ping and Reconnect on a guarded entry. The guard publishes with src/guard/statusChannel.ts; this side
// lives in src/mcp so that front ends read a guard's status without importing the guard.

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
import type { ProbeResult } from '../core/model';
import { ChannelRefusedError, channelDirectory, connectChannel } from './localChannel';

/** Every guard's socket in the channel directory starts so; the rest is its pid. */
export const GUARD_TOPIC_PREFIX = 'guard-';

/** Where a reader says it dropped a message that matched no schema: one line per message. */
export type DropLog = (line: string) => void;
const logToStderr: DropLog = (line) => void process.stderr.write(`mcp-health: ${line}\n`);

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

/**
 * Asks every running guard of this user for its status; guards that do not answer in time are left out, and so are
 * reports that do not match the schema (an older, newer or broken guard), each with one line to `log`.
 */
export async function readGuardStatuses(
  timeoutMs = 1000,
  directory = channelDirectory(),
  log: DropLog = logToStderr,
): Promise<GuardReport[]> {
  const answers = await Promise.all(guardSockets(directory).map((path) => askOne(path, timeoutMs, log)));
  return answers.filter((answer): answer is GuardReport => answer !== null);
}

/** Probes the upstream of every running guard named `name`, now; one answer per guard that answered in time. */
export async function probeGuards(
  name: string,
  timeoutMs: number,
  directory = channelDirectory(),
  log: DropLog = logToStderr,
): Promise<GuardProbeAnswer[]> {
  return askGuards(
    name,
    { request: 'probe', answer: guardProbeAnswerSchema, answerType: GUARD_PROBE_RESULT_TYPE },
    timeoutMs,
    directory,
    log,
  );
}

/** Asks every running guard named `name` to restart its upstream; one answer per guard. */
export async function restartGuards(
  name: string,
  timeoutMs: number,
  directory = channelDirectory(),
  log: DropLog = logToStderr,
): Promise<GuardRestartAnswer[]> {
  return askGuards(
    name,
    { request: 'restart', answer: guardRestartAnswerSchema, answerType: GUARD_RESTART_RESULT_TYPE },
    timeoutMs,
    directory,
    log,
  );
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
    return readdirSync(directory)
      .filter((entry) => entry.startsWith(GUARD_TOPIC_PREFIX) && entry.endsWith('.sock'))
      .map((entry) => `${directory}/${entry}`);
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
function askOne<T>(
  path: string,
  timeoutMs: number,
  log: DropLog,
  ask?: Ask<T> & { readonly name: string },
): Promise<GuardReport | T | null> {
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
