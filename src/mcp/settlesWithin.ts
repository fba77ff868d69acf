// Waiting for something that may never come (a child's exit, a DELETE to a hung server) with a bound.

/** Whether `promise` settled within `ms`; either way, no timer is left behind. */
export function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
