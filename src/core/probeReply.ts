// What a probe's answer means, by protocol.md: the one rule the monitor's connection and the guard's keepalive both
// apply to an answer that came back. Pure: the JSON-RPC reply as parsed, nothing about transports or time.

import type { ProbeMethod, ProbeOutcome } from './model';

/** A JSON-RPC response as it came back: a result or an error. */
export interface JsonRpcReply {
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown };
}

export type ReplyClass =
  | { readonly outcome: 'ok' }
  /** `detail` is the fact as seen (`error -32603: boom`, `result {"x":1}`), for the log and the violation message. */
  | { readonly outcome: Extract<ProbeOutcome, 'error-reply' | 'non-empty'>; readonly detail: string };

const RESULT_PREVIEW_CHARS = 200;

/**
 * A JSON-RPC error, whatever its code, is a violation. A pong must be `{}` (a lone `_meta` is tolerated by the
 * schema); a server/discover answer must be a DiscoverResult, which always carries `supportedVersions`: without it the
 * answer proves the loop runs but not that it speaks the modern protocol, the same kind of wrong answer as a
 * non-empty pong. The fallback (tools/list) and initialize only prove the loop runs, so any result is an answer.
 */
export function classifyReply(method: ProbeMethod, reply: JsonRpcReply): ReplyClass {
  if (reply.error) {
    const { code, message } = reply.error;
    return { outcome: 'error-reply', detail: `error ${String(code)}: ${String(message ?? '')}` };
  }
  const result = reply.result;
  if (method === 'ping' && !isEmptyResult(result)) {
    return { outcome: 'non-empty', detail: `result ${preview(result)}` };
  }
  if (method === 'server/discover' && !(isObject(result) && Array.isArray(result.supportedVersions))) {
    return { outcome: 'non-empty', detail: `result without supportedVersions ${preview(result)}` };
  }
  return { outcome: 'ok' };
}

/** How a wrong answer reads in a log line or a server's error: `ping answered with a non-empty result: result {...}`. */
export function describeWrongAnswer(
  method: ProbeMethod,
  outcome: Extract<ProbeOutcome, 'error-reply' | 'non-empty'>,
  detail: string | undefined,
): string {
  const what =
    outcome === 'error-reply' ? 'a JSON-RPC error' : method === 'ping' ? 'a non-empty result' : 'a result the protocol does not allow';
  return `${method} answered with ${what}${detail ? `: ${detail}` : ''}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEmptyResult(result: unknown): boolean {
  if (!isObject(result)) return false;
  for (const key in result) if (key !== '_meta') return false;
  return true;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > RESULT_PREVIEW_CHARS ? `${text.slice(0, RESULT_PREVIEW_CHARS)}…` : text;
}
