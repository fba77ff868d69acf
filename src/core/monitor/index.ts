// The monitor's public face: a registry factory plus the pure pieces front ends and tests may reuse.

import type { MonitorRegistry } from '../monitorTypes';
import { Registry, type RegistryDeps, type TrustAwareRegistry } from './registry';

export type { RegistryDeps, TrustAwareRegistry } from './registry';
export { backoffCap, backoffDelay, type BackoffSettings } from './backoff';
export { percentile, PROBE_HISTORY_SIZE, RESTART_HISTORY_SIZE } from './probeStats';
export { MIN_INTERVAL_MS, MIN_TIMEOUT_MS, probeIntervalFor, probeTimeoutFor } from './intervals';
export { FALLBACK_PROBE_METHOD } from './serverMonitor';
export { judgeTimer, resumeAfterSuspend, sleptText, suspendAwareClock, SUSPEND_THRESHOLD_MS, wakeLine, type Suspension } from './suspend';
export { mirroredStatus, toRemote, type RemoteStatus, type StatusSource } from './statusSource';
export type { RemoteSource } from './remoteSource';

export function createRegistry(deps: RegistryDeps): TrustAwareRegistry & MonitorRegistry {
  return new Registry(deps);
}
