// How each server state reads and looks. Pure (no editor API, no vscode import) so every view, the report and the CLI
// agree and it can be unit-tested. Display text goes through @vscode/l10n (the editor's bundle once the extension has
// configured it, the English source in the CLI); state identifiers stay as they are for JSON and metrics.

import { isHealthy, type HealthInput } from '../core/healthy';
import * as l10n from '@vscode/l10n';
import type { ServerState, ServerStatus } from '../core/model';
import { certificateOf } from './certificate';

/** How much a server's condition should worry the user; drives colours and the status bar background. */
export type Health = 'ok' | 'pending' | 'warning' | 'error' | 'inactive';

const healthByState: Readonly<Record<ServerState, Health>> = {
  up: 'ok',
  idle: 'pending',
  starting: 'pending',
  connecting: 'pending',
  verifying: 'pending',
  suspect: 'warning',
  'auth-required': 'warning',
  'needs-input': 'warning',
  down: 'error',
  'gave-up': 'error',
  'config-error': 'error',
  disabled: 'inactive',
  untrusted: 'inactive',
  'needs-consent': 'inactive',
  // The user asked for the sandbox and it is missing here: something to act on, not a server fault.
  'sandbox-unavailable': 'warning',
};

/** What each state reads as. Getters, so the text is translated when read, after the extension configured the bundle. */
export const stateLabels: Readonly<Record<ServerState, string>> = {
  get up() {
    return l10n.t({ message: 'up', comment: ['server state: answering its probes'] });
  },
  get idle() {
    return l10n.t({ message: 'waiting', comment: ['server state: not connected yet'] });
  },
  get starting() {
    return l10n.t({ message: 'starting', comment: ['server state: first start of a stdio server, within its start-up budget'] });
  },
  get connecting() {
    return l10n.t({ message: 'connecting', comment: ['server state'] });
  },
  get verifying() {
    return l10n.t({ message: 'verifying', comment: ['server state: reconnected, no probe answered yet'] });
  },
  get suspect() {
    return l10n.t({ message: 'suspect', comment: ['server state: answered against the protocol'] });
  },
  get 'auth-required'() {
    return l10n.t({ message: 'needs auth', comment: ['server state'] });
  },
  get 'needs-input'() {
    return l10n.t({ message: 'needs input', comment: ['server state: an ${input:…} value is missing'] });
  },
  get down() {
    return l10n.t({ message: 'down', comment: ['server state: not answering'] });
  },
  get 'gave-up'() {
    return l10n.t({ message: 'gave up', comment: ['server state: crashed too often, no longer restarted'] });
  },
  get 'config-error'() {
    return l10n.t({ message: 'config error', comment: ['server state'] });
  },
  get disabled() {
    return l10n.t({ message: 'disabled', comment: ['server state: monitoring turned off by the user'] });
  },
  get untrusted() {
    return l10n.t({ message: 'not started (Restricted Mode)', comment: ['server state'] });
  },
  get 'needs-consent'() {
    return l10n.t({ message: 'waiting for consent', comment: ['server state'] });
  },
  get 'sandbox-unavailable'() {
    return l10n.t({
      message: 'sandboxed: not started',
      comment: ['server state: sandboxEnabled, but the sandbox cannot be set up on this machine'],
    });
  },
};

/** The fields health is judged by: a ServerStatus, or the CLI's report of one. */
export type { HealthInput };

/**
 * A crash-looping server is never "ok", even while its latest probe succeeded; nor is one whose answers keep taking
 * longer than its slow threshold: it is up, in the warning colour, and counted apart (isSlow).
 */
export function healthOf(status: HealthInput): Health {
  const health = healthByState[status.state];
  return health === 'ok' && (status.flapping || status.slow === true) ? 'warning' : health;
}

/** Up and answering, but slower than its threshold for several probes in a row: the one definition every view counts. */
export function isSlow(status: HealthInput): boolean {
  return status.state === 'up' && status.slow === true;
}

/**
 * The one definition of healthy that every view counts (status bar, tree badge, dashboard, notifications, CLI), from
 * the core (src/core/healthy.ts), where the metrics exporter reads it too. `verifying` (reconnected, no probe answered
 * yet) is not healthy.
 */
export { isHealthy };

export function isMonitored(status: Pick<ServerStatus, 'state'>): boolean {
  return status.state !== 'disabled' && status.state !== 'untrusted' && status.state !== 'needs-consent';
}

export interface StateIcon {
  /** A codicon id. */
  readonly id: string;
  /** A theme colour id, or none for the default foreground. */
  readonly color?: string;
}

export function stateIcon(status: ServerStatus): StateIcon {
  if (status.guarded) {
    // One shield for every guarded entry, coloured by the guard's report: these are the real connection's figures.
    if (!status.guarded.running) return { id: 'shield', color: 'disabledForeground' };
    switch (healthOf(status)) {
      case 'ok':
        return { id: 'shield', color: 'testing.iconPassed' };
      case 'error':
        return { id: 'shield', color: 'testing.iconFailed' };
      case 'warning':
        return { id: 'shield', color: 'list.warningForeground' };
      default:
        return { id: 'shield', color: 'testing.iconQueued' };
    }
  }
  if (status.flapping && status.state === 'up') {
    return { id: 'pulse', color: 'list.warningForeground' };
  }
  if (isSlow(status)) {
    return { id: 'dashboard', color: 'list.warningForeground' };
  }
  switch (status.state) {
    case 'up':
      return { id: 'pass-filled', color: 'testing.iconPassed' };
    case 'idle':
      return { id: 'circle-large-outline', color: 'testing.iconQueued' };
    case 'starting':
      return { id: 'loading~spin', color: 'testing.iconQueued' };
    case 'connecting':
      return { id: 'sync', color: 'testing.iconQueued' };
    case 'verifying':
      return { id: 'watch', color: 'testing.iconQueued' };
    case 'suspect':
      return { id: 'warning', color: 'list.warningForeground' };
    case 'auth-required':
      return { id: 'lock', color: 'list.warningForeground' };
    case 'needs-input':
      return { id: 'key', color: 'list.warningForeground' };
    case 'down':
      return { id: 'error', color: 'testing.iconFailed' };
    case 'gave-up':
      return { id: 'debug-stop', color: 'testing.iconFailed' };
    case 'config-error':
      return { id: 'bracket-error', color: 'testing.iconErrored' };
    case 'disabled':
      return { id: 'circle-slash', color: 'disabledForeground' };
    case 'untrusted':
      return { id: 'workspace-untrusted', color: 'disabledForeground' };
    case 'needs-consent':
      return { id: 'shield', color: 'list.warningForeground' };
    case 'sandbox-unavailable':
      return { id: 'lock', color: 'list.warningForeground' };
  }
}

/** Round trips under 10 ms keep one decimal so fast local servers do not all read "0 ms". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) {
    return '–';
  }
  // Compare the rounded value, so 9.96 reads "10 ms" and 9999.6 reads "10 s", never "10.0 ms" or "10000 ms".
  if (Math.round(ms * 10) / 10 < 10) {
    return l10n.t('{0} ms', Math.round(ms * 10) / 10);
  }
  if (Math.round(ms) < 10_000) {
    return l10n.t('{0} ms', Math.round(ms));
  }
  return l10n.t('{0} s', Math.round(ms / 100) / 10);
}

/**
 * The short line beside a server's name, e.g. `up · 3 ms`, `up · handshake 40 ms` (no probe answered yet on this
 * connection) or `down · exited (code 1) · retrying in 8 s`. `nowMs` (wall clock) dates the retry countdown.
 */
export function describeState(status: ServerStatus, nowMs: number = Date.now()): string {
  if (status.guarded) return describeGuarded(status, status.guarded);
  if (status.state === 'gave-up') return describeGaveUp(status);
  const parts = [stateLabels[status.state]];
  if (status.state === 'starting') {
    parts.push(...startingParts(status, nowMs));
  }
  if (status.state === 'up' && status.handshakeMs !== undefined && status.handshakeMs !== null) {
    parts.push(l10n.t('handshake {0}', formatMs(status.handshakeMs)));
  } else if (status.state === 'up' && status.lastRttMs !== null) {
    parts.push(formatMs(status.lastRttMs));
  }
  if (isSlow(status)) {
    parts.push(l10n.t('slow'));
  }
  if (status.config.sandbox && status.state !== 'sandbox-unavailable') {
    parts.push(l10n.t({ message: 'sandboxed', comment: ["the server runs inside VS Code's MCP sandbox (sandboxEnabled)"] }));
  }
  // Only when it needs attention: the full date is in the details and the tooltip.
  const certificate = certificateOf(status, nowMs);
  if (certificate?.warning) {
    parts.push(certificate.text);
  }
  if (
    (status.state === 'down' || status.state === 'suspect' || status.state === 'auth-required' || status.state === 'verifying') &&
    status.lastError
  ) {
    parts.push(status.state === 'verifying' ? l10n.t('after {0}', shortError(status)) : shortError(status));
  }
  if ((status.state === 'down' || status.state === 'auth-required') && status.nextRetryAt !== undefined && status.nextRetryAt !== null) {
    parts.push(retryText(status.nextRetryAt - nowMs));
  }
  if (status.state === 'needs-input' && status.config.missingInputs?.length) {
    parts.push(status.config.missingInputs.join(', '));
  }
  if (status.watchedElsewhere !== undefined) {
    parts.push(l10n.t('in another window'));
  }
  if (status.vscodeWontStart) {
    parts.push(l10n.t("VS Code won't start it"));
  }
  if (status.flapping) {
    parts.push(l10n.t('flapping, {0}', restartCount(status.restarts)));
  } else if (status.nonConformant) {
    parts.push(l10n.t('non-conformant'));
  }
  return parts.join(' · ');
}

/** `starting · 12 s` (or `starting · queued`) and the latest stderr line, e.g. npm's download progress. */
function startingParts(status: ServerStatus, nowMs: number): string[] {
  const since = status.startup?.since;
  const parts = [
    since === null || since === undefined ? l10n.t('queued') : l10n.t('{0} s', Math.max(0, Math.floor((nowMs - since) / 1000))),
  ];
  const line = latestLine(status.stderrTail);
  if (line) parts.push(line);
  return parts;
}

/** The last line with something on it, colour codes and carriage-return progress overwrites removed, kept short. */
export function latestLine(text: string, maxChars = 80): string {
  const plain = text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  // A progress line rewritten in place (`\r`) shows its latest state.
  const lines = plain.split(/\r?\n/).flatMap((line) =>
    line
      .split('\r')
      .map((part) => part.trim())
      .filter(Boolean)
      .slice(-1),
  );
  const last = lines.at(-1) ?? '';
  return last.length > maxChars ? `${last.slice(0, maxChars - 1)}…` : last;
}

/** `gave up after 5 crashes in 3 min · exited (code 1)`: the rule that stopped the restarts and the last exit. */
function describeGaveUp(status: ServerStatus): string {
  const rule = status.gaveUp;
  const parts = [rule ? gaveUpText(rule.crashes, rule.windowMs) : stateLabels['gave-up']];
  const error = status.lastError;
  if (error) parts.push(shortError(status));
  return parts.join(' · ');
}

export function gaveUpText(crashes: number, windowMs: number): string {
  const minutes = windowMs / 60_000;
  return minutes >= 1 && Number.isInteger(minutes)
    ? l10n.t('gave up after {0} crashes in {1} min', crashes, minutes)
    : l10n.t('gave up after {0} crashes in {1} s', crashes, Math.round(windowMs / 1000));
}

/** `guarded · up · 1.2 ms · 1 restart · 12 requests`, or `guarded · guard not running`. */
function describeGuarded(status: ServerStatus, guarded: NonNullable<ServerStatus['guarded']>): string {
  if (!guarded.running) return l10n.t('guarded · guard not running');
  const parts = [l10n.t('guarded'), stateLabels[status.state]];
  if (guarded.probeRttMs !== null) parts.push(formatMs(guarded.probeRttMs));
  parts.push(restartCount(guarded.restarts), requestCount(guarded.requests));
  if (guarded.errors > 0) parts.push(errorCount(guarded.errors));
  if (guarded.guards > 1) parts.push(l10n.t('{0} guards', guarded.guards));
  return parts.join(' · ');
}

export function retryText(inMs: number): string {
  return inMs <= 0 ? l10n.t('retrying now') : l10n.t('retrying in {0} s', Math.max(1, Math.round(inMs / 1000)));
}

function shortError(status: ServerStatus): string {
  const error = status.lastError;
  if (!error) {
    return '';
  }
  switch (error.kind) {
    case 'exited':
      return exitSummary(error.exitCode, error.signal);
    case 'timeout':
      return l10n.t('timed out');
    case 'unreachable':
      return error.httpStatus ? l10n.t('HTTP {0}', error.httpStatus) : l10n.t('unreachable');
    case 'protocol-violation':
      return l10n.t('protocol violation');
    case 'auth':
      return error.httpStatus ? l10n.t('HTTP {0}', error.httpStatus) : l10n.t('unauthorised');
    case 'config':
      return l10n.t('bad config');
    case 'input-required':
      return l10n.t('input required');
    case 'sandbox':
      return l10n.t('no sandbox');
  }
}

export function exitSummary(exitCode: number | null | undefined, signal: string | null | undefined): string {
  if (signal) {
    return l10n.t('killed by {0}', signal);
  }
  if (exitCode !== null && exitCode !== undefined) {
    return l10n.t('exited (code {0})', exitCode);
  }
  return l10n.t('exited');
}

/** English-only: for log lines and identifiers. Display text uses one whole message per form, as below. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function restartCount(count: number): string {
  return count === 1 ? l10n.t('1 restart') : l10n.t('{0} restarts', count);
}

export function requestCount(count: number): string {
  return count === 1 ? l10n.t('1 request') : l10n.t('{0} requests', count);
}

export function errorCount(count: number): string {
  return count === 1 ? l10n.t('1 error') : l10n.t('{0} errors', count);
}
