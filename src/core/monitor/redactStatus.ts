// The text of a status that came from a server or a failure, redacted before it is kept: servers echo what they were
// given (tokens in args, env, headers), and everything kept in a status leaves the core.

import type { ServerError, ServerInfo } from '../model';

export function redactedError(error: ServerError, redact: (text: string) => string): ServerError {
  return {
    ...error,
    message: redact(error.message),
    ...(error.stderrTail !== undefined ? { stderrTail: redact(error.stderrTail) } : {}),
    ...(error.searchPath !== undefined ? { searchPath: redact(error.searchPath) } : {}),
    ...(error.proxy !== undefined ? { proxy: redact(error.proxy) } : {}),
    ...(error.authenticate !== undefined ? { authenticate: redact(error.authenticate) } : {}),
  };
}

/** serverInfo is text like any other that leaves the core. */
export function redactedInfo(info: ServerInfo, redact: (text: string) => string): ServerInfo {
  return {
    ...info,
    name: redact(info.name),
    ...(info.version !== undefined ? { version: redact(info.version) } : {}),
    ...(info.title !== undefined ? { title: redact(info.title) } : {}),
  };
}
