// Uptime over 1 h / 24 h / 7 d from the kept history, for the tree (description and tooltip), the dashboard and
// "Copy Details". Verified time only; time nobody observed is left out (see the README's History section).

import * as l10n from '@vscode/l10n';
import type { UptimeWindows } from '../core/history';
import type { DetailRow } from './details';

/** What a view gets for one server: the three windows, or null while there is no history for it. */
export type UptimeOf = (serverId: string) => UptimeWindows | null;

export function formatUptime(percent: number | null): string {
  if (percent === null) return '–';
  // 99.95 would round up to a misleading 100: anything short of all shows one decimal.
  return `${percent === 100 || percent === 0 ? percent : Math.min(99.9, Math.round(percent * 10) / 10).toFixed(1)} %`;
}

export function hasUptime(uptime: UptimeWindows | null | undefined): uptime is UptimeWindows {
  return !!uptime && (uptime.hour !== null || uptime.day !== null || uptime.week !== null);
}

/** `1 h 100 % · 24 h 99.2 % · 7 d 98.0 %` */
export function uptimeWindowsText(uptime: UptimeWindows): string {
  return l10n.t('1 h {0} · 24 h {1} · 7 d {2}', formatUptime(uptime.hour), formatUptime(uptime.day), formatUptime(uptime.week));
}

/** The short form for a tree row's description: the 24 h figure. */
export function uptimeBrief(uptime: UptimeWindows | null | undefined): string | undefined {
  return hasUptime(uptime) && uptime.day !== null ? l10n.t('{0} (24 h)', formatUptime(uptime.day)) : undefined;
}

export function uptimeRow(uptime: UptimeWindows | null | undefined): DetailRow | undefined {
  if (!hasUptime(uptime)) return undefined;
  // Labelled apart from the session's own `uptime` row, which starts again with every window.
  return { key: 'history', label: l10n.t('history'), value: l10n.t('uptime {0}', uptimeWindowsText(uptime)) };
}
