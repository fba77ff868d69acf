// The aggregate the status bar shows: how many monitored servers are up, and the worst condition among them.

import type { ServerStatus } from '../../core/model';
import { healthOf, isMonitored } from './states';

export type WorstHealth = 'ok' | 'warning' | 'error' | 'none';

export interface HealthSummary {
  readonly up: number;
  /** Servers under watch: disabled and Restricted-Mode servers do not count. */
  readonly monitored: number;
  readonly total: number;
  /** Monitored servers on their first connect. Reconnects after a failure do not count: a crash loop must not spin. */
  readonly starting: number;
  /** Listed but not started until the user allows them. */
  readonly waitingForConsent: number;
  readonly worst: WorstHealth;
}

export function summarize(statuses: readonly ServerStatus[]): HealthSummary {
  let up = 0;
  let monitored = 0;
  let starting = 0;
  let waitingForConsent = 0;
  let worst: WorstHealth = 'none';
  for (const status of statuses) {
    if (status.state === 'needs-consent') {
      waitingForConsent++;
    }
    if (!isMonitored(status)) {
      continue;
    }
    monitored++;
    if (status.state === 'up') {
      up++;
    } else if ((status.state === 'connecting' || status.state === 'idle') && status.lastError === null && status.restarts === 0) {
      starting++;
    }
    const health = healthOf(status);
    if (health === 'error') {
      worst = 'error';
    } else if (health === 'warning' && worst !== 'error') {
      worst = 'warning';
    } else if (worst === 'none') {
      worst = 'ok';
    }
  }
  return { up, monitored, total: statuses.length, starting, waitingForConsent, worst };
}

export function statusBarText(summary: HealthSummary, busy: boolean): string {
  // Spinning while servers start: "0/3" alone would read as three servers down.
  const icon = busy || summary.starting > 0 ? '$(loading~spin)' : '$(pulse)';
  if (summary.total === 0) {
    return `${icon} MCP`;
  }
  // "MCP 0/0" alone would hide that servers are there, waiting for the user's Allow.
  const waiting = summary.waitingForConsent > 0 ? ` $(shield) ${summary.waitingForConsent}` : '';
  return `${icon} MCP ${summary.up}/${summary.monitored}${waiting}`;
}

/** The brief line shown after a manual "ping all". */
export function pingOutcomeText(answered: number, asked: number): string {
  if (asked === 0) {
    return '$(info) MCP: nothing to ping';
  }
  return answered === asked ? `$(check) MCP ${answered}/${asked} answered` : `$(warning) MCP ${answered}/${asked} answered`;
}
