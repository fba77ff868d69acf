// Where a server goes after something failed: counted, logged, shown, and the next attempt planned (backoff, the
// credentials ceiling, or giving up on a crash loop). The monitor tears the connection down first and hands the
// failure over; what it is then shown as, and when it is tried again, is decided here.

import { ConnectError, withFacts } from '../connection';
import type { ServerError } from '../model';
import { CrashLoop, crashLoopSettings, gaveUpReason } from './crashLoop';
import type { HealthRecord } from './healthRecord';
import type { DroppingVerdict } from './keepalive';
import type { ReconnectSchedule } from './reconnectSchedule';
import { say, type ServerScope } from './serverScope';

export interface FailureContext extends ServerScope {
  readonly record: HealthRecord;
  readonly retries: ReconnectSchedule;
}

export class FailureCourse {
  private readonly crashes = new CrashLoop();

  constructor(private readonly context: FailureContext) {}

  /** A fresh start (Restart, a change of mode, a gate lifted): no crashes counted. */
  forgetCrashes(): void {
    this.crashes.reset();
  }

  connectFailed(error: unknown): void {
    const serverError = this.context.record.failure(ConnectError.describe(error));
    const auth = serverError.kind === 'auth';
    this.fail(
      serverError,
      `connect failed (${serverError.kind}): ${serverError.message}`,
      auth ? `credentials needed: ${serverError.message}` : `connect failed: ${serverError.message}`,
      auth,
    );
  }

  /** The connection ended without being asked to (already torn down). */
  connectionEnded(end: ServerError): void {
    const { kind, message, ...facts } = end;
    const error = this.context.record.failure(withFacts({ kind, message, phase: 'session' }, facts));
    this.fail(error, `connection ended (${error.kind}): ${error.message}`, error.message, false);
  }

  /** A probe verdict that dropped the connection: reconnect once (a protocol violation), or as after any failure. */
  dropped(verdict: DroppingVerdict): void {
    if (verdict.kind !== 'reconnect-once') {
      this.fail(verdict.error, verdict.message, verdict.message, verdict.kind === 'auth');
      return;
    }
    const { record } = this.context;
    record.noteFailure();
    say(this.context, 'warn', `protocol violation: ${verdict.message}; reconnecting once`);
    record.transition('suspect', `protocol violation: ${verdict.message}; reconnecting once`, verdict.error);
    this.context.retries.afterFailure();
  }

  /** Every failure but a first protocol violation ends here. */
  private fail(error: ServerError, log: string, reason: string, auth: boolean): void {
    const { record, retries } = this.context;
    if (error.kind === 'sandbox') {
      // Nothing was started, so nothing failed: the server is shown as not started, and tried again only rarely
      // (what is missing does not appear by itself; a Reconnect tries at once).
      say(this.context, 'warn', log);
      record.transition('sandbox-unavailable', reason, error);
      retries.afterAuthFailure();
      return;
    }
    record.noteFailure();
    say(this.context, 'error', log);
    if (record.takeEndedStable()) {
      // The connection that ended was up for a stable stretch: a fresh incident, not part of a loop. It recovers in
      // one initial back-off step and starts the crash count over.
      retries.resetBackoff();
      this.crashes.reset();
    }
    if (auth) {
      record.transition('auth-required', reason, error);
      retries.afterAuthFailure();
    } else if (this.crashLoopEnds(error)) {
      retries.clear();
    } else {
      record.transition(record.failedState(), reason, error);
      retries.afterFailure();
    }
  }

  /** Counts a crash (the process exited); true when it completes a crash loop and the server is given up on. */
  private crashLoopEnds(error: ServerError): boolean {
    if (error.kind !== 'exited' || this.context.config().transport !== 'stdio') {
      return false;
    }
    const settings = crashLoopSettings(this.context.settings().crashLoop);
    if (!this.crashes.recordCrash(this.context.clock.monotonic(), settings)) {
      return false;
    }
    const reason = gaveUpReason(settings);
    say(this.context, 'error', `${reason}; not restarted until Restart (Reconnect) or a change of its definition`);
    this.context.record.giveUp(settings, reason, error);
    return true;
  }
}
