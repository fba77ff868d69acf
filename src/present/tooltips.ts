// The Markdown of the tree item's tooltip and the status bar's, from server views. Trusted Markdown in the editor: every
// piece of text from a config file or a server goes through escapeMarkdown or codeBlock here.

import * as l10n from '@vscode/l10n';
import { codeBlock, commandUri, escapeMarkdown } from './markdown';
import { Commands, ViewCommands } from './commandIds';
import type { ServerView } from './serverView';
import { slowCount, type HealthSummary } from './summary';

/** The commands the status bar tooltip's links may run (its MarkdownString's `enabledCommands`). */
export const STATUS_TOOLTIP_COMMANDS: readonly string[] = [
  Commands.pingAll,
  Commands.pingNow,
  Commands.reconnect,
  Commands.allow,
  Commands.showLog,
  ViewCommands.focusServers,
  Commands.copyStatusReport,
  Commands.openConfig,
];
/** Rows in the status bar tooltip; the rest are counted. Only these servers need a view built (10 renders a second). */
export const MAX_TOOLTIP_ROWS = 30;
const ERROR_CHARS = 120;

/** One server's tooltip in the tree: state, details, why and next step, VS Code's note, the source, the connection. */
export function serverTooltipMarkdown(view: ServerView, displayPath: (file: string) => string): string {
  const out = [
    `$(${view.icon.id}) **${escapeMarkdown(view.label)}** — ${escapeMarkdown(view.decorations.includes('guarded') ? view.description : view.stateLabel)}\n\n`,
  ];
  for (const row of view.details) {
    if (row.key === 'stderr' || row.key === 'vscode') continue;
    out.push(`- ${row.warning ? '$(warning) ' : ''}${escapeMarkdown(row.label)}: ${escapeMarkdown(row.value)}\n`);
  }
  if (view.causeLine) out.push(`\n$(info) ${escapeMarkdown(view.causeLine)}\n`);
  if (view.vscodeNote) out.push(`\n$(warning) ${escapeMarkdown(view.vscodeNote)}\n`);
  const stderr = view.details.find((row) => row.key === 'stderr');
  if (stderr?.full) out.push('\nstderr:\n', codeBlock(stderr.full));
  out.push(`\n${escapeMarkdown(displayPath(view.source.file))}:${view.source.line}`);
  out.push(`\n\n${escapeMarkdown(view.connectionsNote)}`);
  return out.join('');
}

/**
 * The status bar's tooltip: the count, then a row per server with its state, why and actions, then the links. `total`:
 * how many servers there are, when only the first MAX_TOOLTIP_ROWS views were built.
 */
export function statusBarTooltipMarkdown(views: readonly ServerView[], summary: HealthSummary, total = views.length): string {
  const slowText = summary.slow > 0 ? ` · ${slowCount(summary.slow)}` : '';
  const out = [`${l10n.t('**MCP Health** · {0}/{1} healthy', summary.healthy, summary.monitored)}${slowText}\n\n`];
  if (total === 0) {
    out.push(l10n.t('No MCP server configured.') + '\n\n');
  } else {
    out.push(`| | ${l10n.t('Server')} | ${l10n.t('State')} | |\n|:-:|---|---|---|\n`);
    for (const view of views.slice(0, MAX_TOOLTIP_ROWS)) {
      // Cut before escaping: a cut after it could leave a lone backslash that escapes the cell's closing pipe.
      const why = view.causeLine ?? view.lastError;
      const error = why ? ` — ${escapeMarkdown(why.slice(0, ERROR_CHARS * 2))}` : '';
      const note = view.vscodeNote ? ` — $(warning) ${escapeMarkdown(view.vscodeNote.slice(0, ERROR_CHARS))}` : '';
      const actions = view.actions
        .map((action) =>
          view.state === 'needs-consent'
            ? `[$(${action.icon}) ${l10n.t('Allow')}](${commandUri(action.command, view.element)} "${action.title}")`
            : `[$(${action.icon})](${commandUri(action.command, view.element)} "${action.title}")`,
        )
        .join(' ');
      out.push(
        `| $(${view.icon.id}) | ${escapeMarkdown(view.label)} | ${escapeMarkdown(view.description)}${error}${note} | ${actions} |\n`,
      );
    }
    const shown = Math.min(views.length, MAX_TOOLTIP_ROWS);
    if (total > shown) out.push(`\n${l10n.t('…and {0} more', total - shown)}\n`);
    out.push('\n');
  }
  out.push(
    `[$(run-all) ${l10n.t('Ping all')}](${commandUri(Commands.pingAll)}) · [$(output) ${l10n.t('Show log')}](${commandUri(Commands.showLog)}) · [$(list-tree) ${l10n.t('Servers')}](${commandUri(ViewCommands.focusServers)}) · [$(markdown) ${l10n.t('Copy report')}](${commandUri(Commands.copyStatusReport)})`,
  );
  return out.join('');
}
