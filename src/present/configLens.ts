// What the config file shows above and on each server entry: a one-line status with actions (the CodeLens) and the
// details on its name (the hover). Same words and icons as the tree; pure, so the editor adapter only maps it.

import * as l10n from '@vscode/l10n';
import type { ServerStatus } from '../core/model';
import { Commands, type CommandId } from './commandIds';
import { detailRows } from './details';
import { codeBlock, commandUri, escapeMarkdown } from './markdown';
import { describeState, isMonitored, stateIcon } from './states';

export interface LensAction {
  readonly title: string;
  readonly tooltip: string;
  readonly command: CommandId;
}

/** Everything one server's lenses show; built once per change of that server, not per render. */
export interface ServerLensModel {
  readonly id: string;
  readonly name: string;
  /** `$(pass-filled) up · 0.4 ms · 13 tools`: the tree's icon and words, and the tool count. */
  readonly summary: string;
  readonly tooltip: string;
  readonly actions: readonly LensAction[];
}

/** What commands get to act on one server: the tree's element form, so one resolver serves both. */
export function lensCommandArgument(id: string): string {
  return `server:${id}`;
}

export function toolCount(status: ServerStatus): string | undefined {
  const count = status.inventory?.tools?.count;
  if (count === undefined) return undefined;
  return count === 1 ? l10n.t('1 tool') : l10n.t('{0} tools', count);
}

/** States with a live connection: only then is the count of its last listing what the server offers now. */
const CONNECTED: ReadonlySet<ServerStatus['state']> = new Set(['up', 'verifying', 'suspect']);

export function lensSummary(status: ServerStatus, nowMs: number): string {
  const parts = [describeState(status, nowMs)];
  const tools = CONNECTED.has(status.state) ? toolCount(status) : undefined;
  if (tools !== undefined) parts.push(tools);
  return `$(${stateIcon(status).id}) ${parts.join(' · ')}`;
}

/** Ping and Reconnect where MCP Health has a connection to act on; Allow or Supply Input where it waits for the user. */
export function lensActions(status: ServerStatus): LensAction[] {
  const actions: LensAction[] = [];
  if (status.state === 'needs-consent') {
    actions.push({ title: l10n.t('Allow'), tooltip: l10n.t('Let MCP Health start and watch this server'), command: Commands.allow });
  } else if (status.state === 'needs-input') {
    actions.push({
      title: l10n.t('Supply Input…'),
      tooltip: l10n.t('Enter the values this server waits for'),
      command: Commands.supplyInput,
    });
  } else if (isMonitored(status) && status.state !== 'config-error' && !status.guarded) {
    actions.push(
      { title: l10n.t('Ping'), tooltip: l10n.t('Probe this server now'), command: Commands.pingNow },
      {
        title: l10n.t('Reconnect'),
        tooltip: l10n.t("Close MCP Health's connection to this server and open a new one"),
        command: Commands.reconnect,
      },
    );
  }
  actions.push({ title: l10n.t('Show Log'), tooltip: l10n.t('Open the MCP Health ping log'), command: Commands.showLog });
  return actions;
}

export function serverLensModel(status: ServerStatus, nowMs: number): ServerLensModel {
  return {
    id: status.config.id,
    name: status.config.name,
    summary: lensSummary(status, nowMs),
    tooltip: l10n.t('MCP Health: {0} is {1}', status.config.name, describeState(status, nowMs)),
    actions: lensActions(status),
  };
}

/**
 * The hover on a server's name: the tree tooltip's rows (details.ts) and the lens actions as links. Trusted Markdown:
 * every text from the file or the server is escaped, and links only name MCP Health's own commands.
 */
export function serverHoverMarkdown(status: ServerStatus, nowMs: number): string {
  const icon = stateIcon(status);
  const lines = [`$(${icon.id}) **${escapeMarkdown(status.config.name)}** — ${escapeMarkdown(describeState(status, nowMs))}`, ''];
  const rows = detailRows(status);
  for (const row of rows) {
    if (row.key !== 'stderr') lines.push(`- ${escapeMarkdown(row.label)}: ${escapeMarkdown(row.value)}`);
  }
  const tools = toolCount(status);
  if (tools !== undefined && !rows.some((row) => row.key === 'tools')) lines.push(`- ${escapeMarkdown(tools)}`);
  let markdown = lines.join('\n');
  const stderr = rows.find((row) => row.key === 'stderr');
  if (stderr?.full) markdown += `\n\nstderr:\n${codeBlock(stderr.full)}`;
  const argument = lensCommandArgument(status.config.id);
  const links = lensActions(status).map(
    (action) => `[${escapeMarkdown(action.title)}](${commandUri(action.command, argument)} "${escapeMarkdown(action.tooltip)}")`,
  );
  return `${markdown}\n\n${links.join(' · ')}`;
}

/**
 * The columns (0-based, end exclusive) of a server's name on its key line, searched from where the parser put the key;
 * the whole rest of the line when the name is written escaped and cannot be found as is.
 */
export function nameSpan(lineText: string, name: string, column: number): { start: number; end: number } {
  const from = Math.max(0, column - 1);
  const at = name.length > 0 ? lineText.indexOf(name, from) : -1;
  return at >= 0 ? { start: at, end: at + name.length } : { start: Math.min(from, lineText.length), end: lineText.length };
}
