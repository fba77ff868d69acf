// The one definition of healthy: up, not crash-looping (flapping) and not slow. The views (src/present), the CLI's
// exit code and the metrics exporter's mcp_health_healthy gauge all read it here, so a dashboard, an alert and the
// status bar can never disagree about the same server.

import type { ServerStatus } from './model';

export type HealthInput = Pick<ServerStatus, 'state' | 'flapping'> & { readonly slow?: boolean };

export function isHealthy(status: HealthInput): boolean {
  return status.state === 'up' && !status.flapping && status.slow !== true;
}
