// A stdio server's first start, which may download its package (npx, uvx): it gets the start-up budget instead of the
// connect timeout, waits for a start slot, and is shown `starting` with its latest stderr line meanwhile.

import type { StartPlan } from './connectionLifetime';
import type { HealthRecord } from './healthRecord';
import { startupTimeoutFor } from './intervals';
import { say, type ServerScope } from './serverScope';

/** Null for a server that is not started by this process (HTTP, SSE): its attempts are plain connects. */
export function firstStartPlan(
  scope: ServerScope,
  record: HealthRecord,
  announce: () => void,
  onStderr: (text: string) => void,
): StartPlan | null {
  const config = scope.config();
  if (config.transport !== 'stdio') return null;
  return {
    budgetMs: startupTimeoutFor(config, scope.settings()),
    running: () => {
      if (record.startRunning()) announce();
    },
    stderr: (text) => {
      onStderr(text);
      // The latest stderr line is shown while it starts (npm's download progress is there).
      if (record.state === 'starting') announce();
    },
  };
}

/**
 * What an attempt shows as it begins: a retried server stays `down` (or `auth-required`) and only announces the
 * attempt, rather than flicker through `connecting`; a first start is `starting` with its budget; anything else
 * `connecting`.
 */
export function beginAttempt(
  scope: ServerScope,
  record: HealthRecord,
  attempt: { reason: string; retry: boolean; start: StartPlan | null },
  announceReconnecting: () => void,
): void {
  record.attempting();
  const state = record.state;
  if (attempt.retry && (state === 'down' || state === 'auth-required')) {
    say(scope, 'info', attempt.reason);
    announceReconnecting();
  } else if (attempt.start) {
    record.beginStart(attempt.start.budgetMs);
    record.transition('starting', `${attempt.reason}; starting (up to ${Math.round(attempt.start.budgetMs / 1000)} s)`);
  } else {
    record.transition('connecting', attempt.reason);
  }
}
