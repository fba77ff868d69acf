// Sleep and wake. After a laptop sleeps every timer fires late at once, HTTP sessions have expired on the server and
// stdio children may have been stopped: the connections look fine and are not. A suspend is seen from the timers
// themselves: the clock handed to the monitor wraps every timer, and a timer that fires far later than it was due, or
// whose wall time ran ahead of its monotonic time, says the process did not run for a while. That is reported once,
// before the late callback runs, so the wake is handled before any catch-up timer acts on stale state.
//
// Two signals, because clocks behave differently while asleep: on Linux and macOS the monotonic clock stops during
// system suspend, so the timer fires on time by monotonic reckoning and only the wall clock shows the jump; a frozen
// process (SIGSTOP, a debugger, a VM paused) and Windows' monotonic clock keep counting, so the timer is simply late.

import type { Clock, TimerHandle } from '../clock';

/**
 * How late a timer must be (or how far the wall clock must run ahead of the monotonic one) to mean the machine slept.
 * Far above what a busy machine does to a timer (garbage collection and a starved event loop on a loaded 2-core
 * machine delay one by tens to hundreds of ms, NTP slews the wall clock by under a second) and far below any real
 * sleep (minutes). A stall that long is worth handling as a wake anyway: the process observed nothing meanwhile.
 */
export const SUSPEND_THRESHOLD_MS = 10_000;

/** One stretch the process did not run, as both clocks saw it; the gap is not observed (neither up nor down). */
export interface Suspension {
  /** How long the process was away, best estimate (the larger lateness of the two clocks). */
  readonly sleptMs: number;
  /** The gap on the wall clock (history buckets); from is when the late timer was due. */
  readonly wallFrom: number;
  readonly wallTo: number;
  /** The gap on the monotonic clock (uptime): empty when the monotonic clock stopped during the suspend. */
  readonly monotonicFrom: number;
  readonly monotonicTo: number;
  readonly detectedBy: 'late-timer' | 'clock-jump';
}

export interface ClockReading {
  readonly monotonic: number;
  readonly wall: number;
}

/**
 * Judges one timer: scheduled at `scheduled` for `delayMs`, fired at `fired`. Null when it was on time. The gap ends
 * now and reaches back by the lateness: the timer would have fired at its due time had the process been running.
 */
export function judgeTimer(
  scheduled: ClockReading,
  delayMs: number,
  fired: ClockReading,
  thresholdMs = SUSPEND_THRESHOLD_MS,
): Suspension | null {
  const monotonicLate = fired.monotonic - scheduled.monotonic - delayMs;
  const wallLate = fired.wall - scheduled.wall - delayMs;
  const late = monotonicLate > thresholdMs;
  // The wall clock running ahead of the monotonic one by the threshold, whatever the delay was.
  const jump = fired.wall - scheduled.wall - (fired.monotonic - scheduled.monotonic) > thresholdMs;
  if (!late && !jump) {
    return null;
  }
  const wallGap = Math.max(0, wallLate);
  const monotonicGap = Math.max(0, monotonicLate);
  return {
    sleptMs: Math.max(wallGap, monotonicGap),
    wallFrom: fired.wall - wallGap,
    wallTo: fired.wall,
    monotonicFrom: fired.monotonic - monotonicGap,
    monotonicTo: fired.monotonic,
    detectedBy: late ? 'late-timer' : 'clock-jump',
  };
}

/**
 * The same clock, with every timer judged as it fires: `onWake` is called once per suspend, before the first late
 * callback. Timers scheduled before a reported wake are late from the same sleep and are not reported again. A timer
 * cleared by `onWake` (the wake re-planned it) does not run.
 */
export function suspendAwareClock(clock: Clock, onWake: (suspension: Suspension) => void, thresholdMs = SUSPEND_THRESHOLD_MS): Clock {
  // Timers are numbered as they are scheduled: those numbered below the wake's were late from the same sleep. (Not
  // by time: a monotonic clock that stopped while asleep cannot tell before from after.)
  let scheduledCount = 0;
  let wokeAtCount = 0;
  const reading = (): ClockReading => ({ monotonic: clock.monotonic(), wall: clock.wall() });
  // The one timer whose callback is being judged, and whether onWake cleared it meanwhile: any other timer onWake
  // clears is stopped by the clock itself. (No table of live timers: this runs for every probe.)
  let firing: TimerHandle | null = null;
  let firingCleared = false;
  return {
    monotonic: () => clock.monotonic(),
    wall: () => clock.wall(),
    setTimeout: (callback, ms) => {
      const scheduled = reading();
      const number = scheduledCount++;
      const handle: TimerHandle = clock.setTimeout(() => {
        if (number >= wokeAtCount) {
          const suspension = judgeTimer(scheduled, Number.isFinite(ms) ? Math.max(0, ms) : 0, reading(), thresholdMs);
          if (suspension) {
            wokeAtCount = scheduledCount;
            firing = handle;
            firingCleared = false;
            onWake(suspension);
            firing = null;
            if (firingCleared) return;
          }
        }
        callback();
      }, ms);
      return handle;
    },
    clearTimeout: (handle) => {
      if (handle === firing) firingCleared = true;
      clock.clearTimeout(handle);
    },
  };
}

/** "12 min", "45 s", "2 h 5 min": how long a suspend lasted, as the wake line says it. */
export function sleptText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** The line the ping log and the CLI show on wake. */
export function wakeLine(suspension: Suspension): string {
  return `resumed after ${sleptText(suspension.sleptMs)} asleep: probing all servers`;
}

/** What the registry gives the wake: its servers' monitors, its log and events, and one probe round. */
export interface WakeTarget {
  /** Each monitor drops the gap from its uptime and starts its reconnect backoff over. */
  monitors(): Iterable<{ resumed(suspension: Suspension): void }>;
  log(line: string): void;
  emit(suspension: Suspension): void;
  /** One probe of every server at once; servers without a connection connect now (expired ones reconnect). */
  probeAll(): Promise<unknown>;
}

/**
 * On wake: the gap leaves every server's uptime, the views and the history are told (the gap is unobserved there too),
 * and every server is probed at once. Late keepalive and retry timers that fire in the same burst join that probe or
 * connect (one in flight per server), so there is one round, not a storm.
 */
export function resumeAfterSuspend(suspension: Suspension, target: WakeTarget): void {
  for (const monitor of target.monitors()) monitor.resumed(suspension);
  target.log(wakeLine(suspension));
  target.emit(suspension);
  void target.probeAll().catch((error: unknown) => target.log(`probe round after wake failed: ${String(error)}`));
}
