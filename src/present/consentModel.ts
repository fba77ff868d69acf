// What the consent notification and the Review picker say. Pure, so the wording and the masking are unit-tested.

import * as l10n from '@vscode/l10n';
import type { DefinitionChange } from '../core/consent/definitionHash';
import type { ServerConfig, ServerStatus } from '../core/model';
import type { MonitorMode } from '../core/monitorTypes';
import { describeTarget, redactEnv, redactText } from '../core/redact';

/** A long value (a PATH) is cut: the picker row is for recognising it, the file has the rest. */
const MAX_ENV_VALUE_CHARS = 60;

/**
 * "MCP Health found 5 servers in .vscode/mcp.json. Start watching them?" — every file named, in discovery order.
 * A server allowed before whose definition changed is named with what changed ("NODE_OPTIONS changed"); a single
 * server's environment is shown too (names, and the values that are no secret).
 */
export function consentMessage(
  waiting: readonly ServerStatus[],
  displayPath: (file: string) => string,
  changesOf: (config: ServerConfig) => readonly DefinitionChange[] | null = () => null,
): string {
  const files = [...new Set(waiting.map((status) => displayPath(status.config.source.file)))];
  const where = files.length <= 1 ? (files[0] ?? '') : l10n.t('{0} and {1}', files.slice(0, -1).join(', '), files.at(-1) ?? '');
  // One whole sentence per form, so a translator sees the question as the user reads it.
  const question =
    waiting.length === 1
      ? l10n.t('MCP Health found 1 server in {0}. Start watching it?', where)
      : l10n.t('MCP Health found {0} servers in {1}. Start watching them?', waiting.length, where);
  const changed = waiting.flatMap((status) => {
    const changes = changesOf(status.config);
    return changes && changes.length > 0 ? [l10n.t('{0}: {1}', status.config.name, describeChanges(changes))] : [];
  });
  const env = waiting.length === 1 ? describeEnv(waiting[0].config) : '';
  return [question, ...changed, ...(env ? [env] : [])].join(' ');
}

/**
 * "Changed since you allowed it: NODE_OPTIONS changed, arguments changed." Names only, never a value (the digests
 * that found the change cannot give one back anyway). Empty for no change.
 */
export function describeChanges(changes: readonly DefinitionChange[]): string {
  if (changes.length === 0) return '';
  const items = changes.map((change) => {
    const what = change.name ?? partLabel(change.part);
    switch (change.kind) {
      case 'added':
        return l10n.t('{0} added', what);
      case 'removed':
        return l10n.t('{0} removed', what);
      default:
        return l10n.t('{0} changed', what);
    }
  });
  return l10n.t('Changed since you allowed it: {0}.', items.join(', '));
}

function partLabel(part: string): string {
  switch (part) {
    case 'command':
      return l10n.t('command');
    case 'args':
      return l10n.t('arguments');
    case 'cwd':
      return l10n.t('working directory');
    case 'url':
      return l10n.t('URL');
    case 'transport':
      return l10n.t('transport');
    case 'sandbox':
      return l10n.t('sandbox policy');
    default:
      return part;
  }
}

/**
 * "Environment: NODE_OPTIONS=--max-old-space-size=512, API_TOKEN=***": every name, and the value where the secret
 * rule (core/redact) calls it no secret. Empty when the server sets no environment.
 */
export function describeEnv(config: ServerConfig): string {
  const env = redactEnv(config.env, config.secretValues ?? []);
  const names = Object.keys(env).sort();
  if (names.length === 0) return '';
  const shown = names.map((name) => {
    const value = env[name];
    return `${name}=${value.length > MAX_ENV_VALUE_CHARS ? `${value.slice(0, MAX_ENV_VALUE_CHARS - 1)}…` : value}`;
  });
  return l10n.t('Environment: {0}', shown.join(', '));
}

/** The command line or URL that would run or be contacted, with every known secret masked. */
export function whatWouldRun(status: ServerStatus): string {
  return redactText(describeTarget(status.config), status.config.secretValues ?? []);
}

/** Getters, so the text is translated when read (after activation configured the bundle), not when this loads. */
export const modeLabels: Readonly<Record<MonitorMode, string>> = {
  get watch() {
    return l10n.t('watch: keep connected, keepalive probes');
  },
  get check() {
    return l10n.t('check: connect, probe once, disconnect; again every few minutes');
  },
  get off() {
    return l10n.t('off: list only, never start');
  },
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
