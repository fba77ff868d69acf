// CPU profiles of chosen windows of this very process (node:inspector), for sections whose measured code runs in the
// bench process itself rather than in a worker started with --cpu-prof.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Session } from 'node:inspector/promises';
import type { CpuProfile } from './profileSummary';

export interface WindowProfiler {
  /** Profiles `task` alone; the profiles of all windows are kept. */
  window<T>(task: () => Promise<T>): Promise<T>;
  readonly profiles: readonly CpuProfile[];
  /** Writes the last window's .cpuprofile (for a viewer) and disconnects. */
  close(file: string): Promise<void>;
}

export async function startWindowProfiler(): Promise<WindowProfiler> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  const profiles: CpuProfile[] = [];
  return {
    profiles,
    async window(task) {
      await session.post('Profiler.start');
      try {
        return await task();
      } finally {
        const { profile } = await session.post('Profiler.stop');
        profiles.push(profile as unknown as CpuProfile);
      }
    },
    async close(file) {
      try {
        const last = profiles[profiles.length - 1];
        if (last) {
          mkdirSync(dirname(file), { recursive: true });
          writeFileSync(file, JSON.stringify(last));
        }
      } finally {
        session.disconnect();
      }
    },
  };
}
