// A stdio server's first start, which may download its package (npx, uvx): it gets the start-up budget instead of the
// connect timeout, waits for a start slot, and is shown `starting` with its latest stderr line meanwhile.

import type { StartPlan } from './connectionLifetime';
import type { HealthRecord } from './healthRecord';
import { startupTimeoutFor } from './intervals';
import type { ServerScope } from './serverScope';

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
