// How each server state reads and looks. Pure (no editor API) so every view and the report agree and it can be unit-tested.

import type { ServerState, ServerStatus } from '../../core/model';

/** How much a server's condition should worry the user; drives colours and the status bar background. */
export type Health = 'ok' | 'pending' | 'warning' | 'error' | 'inactive';

const healthByState: Readonly<Record<ServerState, Health>> = {
  up: 'ok',
  idle: 'pending',
  connecting: 'pending',
  suspect: 'warning',
  'auth-required': 'warning',
  'needs-input': 'warning',
  down: 'error',
  'config-error': 'error',
  disabled: 'inactive',
  untrusted: 'inactive',
  'needs-consent': 'inactive',
};

export const stateLabels: Readonly<Record<ServerState, string>> = {
  up: 'up',
  idle: 'waiting',
  connecting: 'connecting',
  suspect: 'suspect',
  'auth-required': 'needs auth',
  'needs-input': 'needs input',
  down: 'down',
  'config-error': 'config error',
  disabled: 'disabled',
  untrusted: 'not started (Restricted Mode)',
  'needs-consent': 'waiting for consent',
};

/** A crash-looping server is never "ok", even while its latest probe succeeded. */
export function healthOf(status: ServerStatus): Health {
  const health = healthByState[status.state];
  return health === 'ok' && status.flapping ? 'warning' : health;
}

export function isMonitored(status: ServerStatus): boolean {
  return status.state !== 'disabled' && status.state !== 'untrusted' && status.state !== 'needs-consent';
}

export interface StateIcon {
  /** A codicon id. */
  readonly id: string;
  /** A theme colour id, or none for the default foreground. */
  readonly color?: string;
}

export function stateIcon(status: ServerStatus): StateIcon {
  if (status.flapping && status.state === 'up') {
    return { id: 'pulse', color: 'list.warningForeground' };
  }
  switch (status.state) {
    case 'up': return { id: 'pass-filled', color: 'testing.iconPassed' };
    case 'idle': return { id: 'circle-large-outline', color: 'testing.iconQueued' };
    case 'connecting': return { id: 'sync', color: 'testing.iconQueued' };
    case 'suspect': return { id: 'warning', color: 'list.warningForeground' };
    case 'auth-required': return { id: 'lock', color: 'list.warningForeground' };
    case 'needs-input': return { id: 'key', color: 'list.warningForeground' };
    case 'down': return { id: 'error', color: 'testing.iconFailed' };
    case 'config-error': return { id: 'bracket-error', color: 'testing.iconErrored' };
    case 'disabled': return { id: 'circle-slash', color: 'disabledForeground' };
    case 'untrusted': return { id: 'workspace-untrusted', color: 'disabledForeground' };
    case 'needs-consent': return { id: 'shield', color: 'list.warningForeground' };
  }
}

/** Round trips under 10 ms keep one decimal so fast local servers do not all read "0 ms". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) {
    return '–';
  }
  // Compare the rounded value, so 9.96 reads "10 ms" and 9999.6 reads "10 s", never "10.0 ms" or "10000 ms".
  if (Math.round(ms * 10) / 10 < 10) {
    return `${Math.round(ms * 10) / 10} ms`;
  }
  if (Math.round(ms) < 10_000) {
    return `${Math.round(ms)} ms`;
  }
  return `${Math.round(ms / 100) / 10} s`;
}

/** The short line beside a server's name, e.g. `up · 3 ms` or `down · exited (code 1)`. */
export function describeState(status: ServerStatus): string {
  const parts = [stateLabels[status.state]];
  if (status.state === 'up' && status.lastRttMs !== null) {
    parts.push(formatMs(status.lastRttMs));
  }
  if ((status.state === 'down' || status.state === 'suspect' || status.state === 'auth-required') && status.lastError) {
    parts.push(shortError(status));
  }
  if (status.state === 'needs-input' && status.config.missingInputs?.length) {
    parts.push(status.config.missingInputs.join(', '));
  }
  if (status.watchedElsewhere !== undefined) {
    parts.push('in another window');
  }
  if (status.flapping) {
    parts.push(`flapping, ${plural(status.restarts, 'restart')}`);
  } else if (status.nonConformant) {
    parts.push('non-conformant');
  }
  return parts.join(' · ');
}

function shortError(status: ServerStatus): string {
  const error = status.lastError;
  if (!error) {
    return '';
  }
  switch (error.kind) {
    case 'exited': return exitSummary(error.exitCode, error.signal);
    case 'timeout': return 'timed out';
    case 'unreachable': return error.httpStatus ? `HTTP ${error.httpStatus}` : 'unreachable';
    case 'protocol-violation': return 'protocol violation';
    case 'auth': return error.httpStatus ? `HTTP ${error.httpStatus}` : 'unauthorised';
    case 'config': return 'bad config';
    case 'input-required': return 'input required';
  }
}

export function exitSummary(exitCode: number | null | undefined, signal: string | null | undefined): string {
  if (signal) {
    return `killed by ${signal}`;
  }
  if (exitCode !== null && exitCode !== undefined) {
    return `exited (code ${exitCode})`;
  }
  return 'exited';
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
