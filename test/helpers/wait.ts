// Bounded polling for tests that watch real processes and sockets: every wait has a limit in time, and `waitFor` says
// what it waited for when the limit passes. Unit tests use fake timers (fakeClock.ts) instead.

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held (checked once more at the end). */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await sleep(everyMs);
  }
  return condition();
}

/**
 * Polls `probe` until it gives a value other than undefined or false, and returns it; throws, naming `what` and the
 * probe's last error, when `timeoutMs` passes.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(everyMs);
  }
}
