// A last line of defence around work that promises its own timeout (connect, probe): if that promise is broken,
// the monitor must still move on, or a hung call would leave a server looking healthy forever.

import type { Clock } from '../clock';

export type Settlement<T> = { readonly value: T } | { readonly error: unknown };

export interface TimeLimited<T> {
  readonly promise: Promise<T>;
  /** Settles now (if not yet settled) and releases the timer; a late result is handed to onLate. */
  cancel(settlement: Settlement<T>): void;
}

export function withTimeLimit<T>(
  clock: Clock,
  work: Promise<T>,
  limitMs: number,
  onExpiry: () => Settlement<T>,
  onLate?: (value: T) => void,
): TimeLimited<T> {
  let settled = false;
  let settle: (settlement: Settlement<T>) => void = () => undefined;
  const promise = new Promise<T>((resolve, reject) => {
    settle = (settlement) => {
      if (settled) {
        return;
      }
      settled = true;
      clock.clearTimeout(timer);
      if ('value' in settlement) {
        resolve(settlement.value);
      } else {
        reject(settlement.error);
      }
    };
  });
  const timer = clock.setTimeout(() => settle(onExpiry()), limitMs);
  work.then(
    (value) => {
      if (settled) {
        onLate?.(value);
      } else {
        settle({ value });
      }
    },
    (error: unknown) => settle({ error }),
  );
  return { promise, cancel: (settlement) => settle(settlement) };
}
