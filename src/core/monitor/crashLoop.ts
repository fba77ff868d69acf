// When to stop restarting a crash-looping server, as language clients do (vscode-languageclient: 5 crashes in 3
// minutes). One rule for the monitor and the guard: a restart loop that never ends hides the problem behind a
// "reconnecting" that never finishes, and burns a core on a small machine.

import { SETTINGS } from '../settings';

/** `crashes` or more crashes within `windowMs` and the server is given up on until the user restarts it. */
export interface CrashLoopSettings {
  readonly crashes: number;
  readonly windowMs: number;
}

export const defaultCrashLoopSettings: CrashLoopSettings = {
  crashes: SETTINGS['crashLoop.maxCrashes'].default,
  windowMs: SETTINGS['crashLoop.windowMinutes'].default * 60_000,
};

/** The ceiling any back-off may reach before the give-up, whatever is configured (Kubernetes' CrashLoopBackOff cap). */
export const BACKOFF_CEILING_MS = 5 * 60_000;

/** The crash-loop settings in force: whole crashes, at least 2 (one crash is an incident, not a loop), a positive window. */
export function crashLoopSettings(settings: Partial<CrashLoopSettings> | undefined): CrashLoopSettings {
  const crashes = Math.max(2, Math.floor(settings?.crashes ?? defaultCrashLoopSettings.crashes));
  const windowMs = Math.max(1_000, settings?.windowMs ?? defaultCrashLoopSettings.windowMs);
  return {
    crashes: Number.isFinite(crashes) ? crashes : defaultCrashLoopSettings.crashes,
    windowMs: Number.isFinite(windowMs) ? windowMs : defaultCrashLoopSettings.windowMs,
  };
}

/** `gave up after 5 crashes in 3 min`: the words every front end shows for the give-up. */
export function gaveUpReason(settings: CrashLoopSettings): string {
  const minutes = settings.windowMs / 60_000;
  const window = minutes >= 1 && Number.isInteger(minutes) ? `${minutes} min` : `${Math.round(settings.windowMs / 1000)} s`;
  return `gave up after ${settings.crashes} crashes in ${window}`;
}

/** The crashes of one server inside the window (monotonic times), and whether they reached the limit. */
export class CrashLoop {
  private times: number[] = [];

  /** Counts one crash; true when it is the one that reaches the limit: stop restarting. */
  recordCrash(monotonicNow: number, settings: CrashLoopSettings): boolean {
    this.times.push(monotonicNow);
    this.times = this.times.filter((time) => monotonicNow - time < settings.windowMs);
    return this.times.length >= settings.crashes;
  }

  get count(): number {
    return this.times.length;
  }

  /** A restart the user asked for, or a changed definition: the server gets a fresh start. */
  reset(): void {
    this.times = [];
  }
}
