// Reconnect delays: exponential growth bounds the reconnect rate of a dead server, full jitter spreads
// reconnects of many servers (or many editor windows) so they do not arrive in lockstep.

export interface BackoffSettings {
  readonly initialMs: number;
  readonly maxMs: number;
}

/** The upper bound of the delay before reconnect number `attempt` (0-based): initialMs * 2^attempt, at most maxMs. */
export function backoffCap(attempt: number, settings: BackoffSettings): number {
  const initial = Math.max(0, settings.initialMs);
  const max = Math.max(initial, settings.maxMs);
  const grown = initial * 2 ** Math.max(0, attempt);
  return Number.isFinite(grown) ? Math.min(max, grown) : max;
}

/** Full jitter: a uniform delay in [0, cap). `random` returns values in [0, 1) like Math.random. */
export function backoffDelay(attempt: number, settings: BackoffSettings, random: () => number): number {
  const fraction = Math.min(Math.max(random(), 0), 1);
  return Math.floor(fraction * backoffCap(attempt, settings));
}
