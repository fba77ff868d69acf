// How a long-running command (watch, serve) waits: until Ctrl-C, SIGTERM or its duration, whichever comes first. The
// timer keeps the process alive while everything else (the monitor's timers) is unref'd; both handlers are removed
// again so the exit path leaves nothing behind.

const FOREVER_MS = 2 ** 31 - 1;

export function untilStopped(durationMs: number = FOREVER_MS): Promise<void> {
  return new Promise<void>((resolve) => {
    const keepAlive = setTimeout(stop, durationMs);
    function stop() {
      clearTimeout(keepAlive);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    }
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
