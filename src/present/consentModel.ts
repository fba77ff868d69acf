// What the consent notification and the Review picker say. Pure, so the wording and the masking are unit-tested.

import * as l10n from '@vscode/l10n';
import type { ServerStatus } from '../core/model';
import type { MonitorMode } from '../core/monitorTypes';
import { describeTarget, redactText } from '../core/redact';

/** "MCP Health found 5 servers in .vscode/mcp.json. Start watching them?" — every file named, in discovery order. */
export function consentMessage(waiting: readonly ServerStatus[], displayPath: (file: string) => string): string {
  const files = [...new Set(waiting.map((status) => displayPath(status.config.source.file)))];
  const where = files.length <= 1 ? files[0] ?? '' : l10n.t('{0} and {1}', files.slice(0, -1).join(', '), files.at(-1) ?? '');
  // One whole sentence per form, so a translator sees the question as the user reads it.
  return waiting.length === 1
    ? l10n.t('MCP Health found 1 server in {0}. Start watching it?', where)
    : l10n.t('MCP Health found {0} servers in {1}. Start watching them?', waiting.length, where);
}

/** The command line or URL that would run or be contacted, with every known secret masked. */
export function whatWouldRun(status: ServerStatus): string {
  return redactText(describeTarget(status.config), status.config.secretValues ?? []);
}

/** Getters, so the text is translated when read (after activation configured the bundle), not when this loads. */
export const modeLabels: Readonly<Record<MonitorMode, string>> = {
  get watch() { return l10n.t('watch: keep connected, keepalive probes'); },
  get check() { return l10n.t('check: connect, probe once, disconnect; again every few minutes'); },
  get off() { return l10n.t('off: list only, never start'); },
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
