// What the consent notification and the Review picker say. Pure, so the wording and the masking are unit-tested.

import type { ServerStatus } from '../core/model';
import type { MonitorMode } from '../core/monitorTypes';
import { describeTarget, redactText } from '../core/redact';
import { plural } from './states';

/** "MCP Health found 5 servers in .vscode/mcp.json. Start watching them?" — every file named, in discovery order. */
export function consentMessage(waiting: readonly ServerStatus[], displayPath: (file: string) => string): string {
  const files = [...new Set(waiting.map((status) => displayPath(status.config.source.file)))];
  const where = files.length <= 1 ? files[0] ?? '' : `${files.slice(0, -1).join(', ')} and ${files.at(-1) ?? ''}`;
  const them = waiting.length === 1 ? 'it' : 'them';
  return `MCP Health found ${plural(waiting.length, 'server')} in ${where}. Start watching ${them}?`;
}

/** The command line or URL that would run or be contacted, with every known secret masked. */
export function whatWouldRun(status: ServerStatus): string {
  return redactText(describeTarget(status.config), status.config.secretValues ?? []);
}

export const modeLabels: Readonly<Record<MonitorMode, string>> = {
  watch: 'watch: keep connected, keepalive probes',
  check: 'check: connect, probe once, disconnect; again every few minutes',
  off: 'off: list only, never start',
};

/** The picker cycles watch -> check -> off -> watch on the item's button. */
export function nextMode(mode: MonitorMode): MonitorMode {
  return mode === 'watch' ? 'check' : mode === 'check' ? 'off' : 'watch';
}

/**
 * When to ask. One question at a time; "Not Now" (or closing the question or the picker) is remembered for exactly the
 * definitions asked about, in this window only: a new window, a new server or a changed definition asks again, and
 * nothing asks in a loop.
 */
export class ConsentPromptPolicy {
  private readonly dismissed = new Set<string>();
  private open = false;

  /** The keys worth asking about now, or none while a question is open or every waiting one was dismissed. */
  shouldAsk(waitingKeys: readonly string[]): boolean {
    return !this.open && waitingKeys.some((key) => !this.dismissed.has(key));
  }

  opened(): void {
    this.open = true;
  }

  closed(): void {
    this.open = false;
  }

  dismiss(keys: readonly string[]): void {
    for (const key of keys) {
      this.dismissed.add(key);
    }
  }

  /** Reset All Consent Decisions: ask about everything again. */
  forget(): void {
    this.dismissed.clear();
  }
}
