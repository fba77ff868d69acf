import type { Figure, Skipped } from './report';

/** What each section gets: where to put figures and raw samples, and how long it may take. */
export interface BenchContext {
  readonly quick: boolean;
  /** Write CPU profiles of the scale workers and of the metrics scrapes to bench/results/profiles. */
  readonly profile: boolean;
  readonly figures: Figure[];
  readonly skipped: Skipped[];
  readonly raw: Record<string, unknown>;
  log(message: string): void;
}

/** Runs `task` but gives up after `ms`: no section may hang the bench. */
export async function withDeadline<T>(what: string, ms: number, task: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([task(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
