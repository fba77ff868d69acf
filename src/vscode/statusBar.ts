// The status bar aggregate: `$(pulse) MCP 4/5 $(warning)` (healthy/monitored and the worst problem), coloured by the
// worst state, with a row per server in its tooltip.

import * as vscode from 'vscode';
import type { ServerStatus } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import { coalesce } from './coalesce';
import { commandUri, escapeMarkdown } from '../present/markdown';
import type { StatusBarVisibility } from '../present/settingsModel';
import { describeState, stateIcon } from '../present/states';
import { healthSentence, slowCount, statusBarText, summarize } from '../present/summary';
import { serverElementId } from '../present/treeModel';
import { Commands, ViewCommands } from '../present/commandIds';

const TOOLTIP_COMMANDS = [Commands.pingAll, Commands.pingNow, Commands.reconnect, Commands.showLog, ViewCommands.focusServers, Commands.copyStatusReport, Commands.openConfig];
const OUTCOME_VISIBLE_MS = 4000;
const MAX_TOOLTIP_ROWS = 30;

export class HealthStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  /** A state change shows within a frame; what only probes change (latencies in the tooltip) at most 10 times a second. */
  private readonly renderStateSoon = coalesce(() => this.render(), 16, { leading: true });
  private readonly renderSoon = coalesce(() => this.render(), 100, { leading: true });
  private readonly unsubscribe: () => void;
  private busy = false;
  private visible = false;
  private outcome: { text: string; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly registry: MonitorRegistry, private visibility: StatusBarVisibility) {
    this.item = vscode.window.createStatusBarItem('mcpHealth.status', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'MCP Health';
    this.item.command = Commands.pingAll;
    this.unsubscribe = registry.onEvent((event) => {
      if (event.type === 'state' || event.type === 'servers') {
        this.renderStateSoon.schedule();
      } else if (event.type !== 'stderr') {
        this.renderSoon.schedule();
      }
    });
    // No render() here: this runs inside activate(), and the first text is drawn by the deferred start (McpHealth).
  }

  setVisibility(visibility: StatusBarVisibility): void {
    this.visibility = visibility;
    this.render();
  }

  /** Shows the spinner while a manual "ping all" runs. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.render();
  }

  /** Shows the result of a manual ping in place of the aggregate for a few seconds. */
  showOutcome(text: string): void {
    this.clearOutcome();
    this.outcome = { text, timer: setTimeout(() => { this.clearOutcome(); this.render(); }, OUTCOME_VISIBLE_MS) };
    this.render();
  }

  /** For the end-to-end suite: what the user sees. */
  snapshot(): { text: string; tooltip: string; visible: boolean; background: string | undefined } {
    this.renderStateSoon.flush();
    this.renderSoon.flush();
    const tooltip = this.item.tooltip;
    return {
      text: this.item.text,
      tooltip: typeof tooltip === 'string' ? tooltip : tooltip?.value ?? '',
      visible: this.visible,
      background: this.item.backgroundColor?.id,
    };
  }

  render(): void {
    const statuses = this.registry.list();
    const summary = summarize(statuses);
    this.item.text = this.outcome && !this.busy ? this.outcome.text : statusBarText(summary, this.busy);
    this.item.backgroundColor = summary.worst === 'error'
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : summary.worst === 'warning' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('MCP Health: {0}', healthSentence(summary)) };
    this.item.tooltip = tooltipFor(statuses, summary.healthy, summary.monitored, summary.slow);
    const shouldShow = this.visibility === 'always' || (this.visibility === 'whenServers' && statuses.length > 0);
    if (shouldShow !== this.visible) {
      this.visible = shouldShow;
      if (shouldShow) {
        this.item.show();
      } else {
        this.item.hide();
      }
    }
  }

  private clearOutcome(): void {
    if (this.outcome) {
      clearTimeout(this.outcome.timer);
      this.outcome = undefined;
    }
  }

  dispose(): void {
    this.unsubscribe();
    this.renderStateSoon.dispose();
    this.renderSoon.dispose();
    this.clearOutcome();
    this.item.dispose();
  }
}

function tooltipFor(statuses: readonly ServerStatus[], healthy: number, monitored: number, slow: number): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.isTrusted = { enabledCommands: TOOLTIP_COMMANDS };
  md.supportHtml = false;
  const slowText = slow > 0 ? ` · ${slowCount(slow)}` : '';
  md.appendMarkdown(`${vscode.l10n.t('**MCP Health** · {0}/{1} healthy', healthy, monitored)}${slowText}\n\n`);
  if (statuses.length === 0) {
    md.appendMarkdown(vscode.l10n.t('No MCP server configured.') + '\n\n');
  } else {
    md.appendMarkdown(`| | ${vscode.l10n.t('Server')} | ${vscode.l10n.t('State')} | |\n|:-:|---|---|---|\n`);
    for (const status of statuses.slice(0, MAX_TOOLTIP_ROWS)) {
      const icon = stateIcon(status);
      // Cut before escaping: a cut after it could leave a lone backslash that escapes the cell's closing pipe.
      const error = status.lastError && status.state !== 'up' ? ` — ${escapeMarkdown(status.lastError.message.slice(0, 120))}` : '';
      const element = serverElementId(status.config.id);
      const actions = status.state === 'needs-consent'
        ? `[$(check) ${vscode.l10n.t('Allow')}](${commandUri(Commands.allow, element)} "${vscode.l10n.t('Allow this server to start')}")`
        : status.state === 'disabled' || status.state === 'untrusted'
        ? ''
        : `[$(pulse)](${commandUri(Commands.pingNow, element)} "${vscode.l10n.t('Ping now')}") [$(debug-restart)](${commandUri(Commands.reconnect, element)} "${vscode.l10n.t('Reconnect')}")`;
      md.appendMarkdown(`| $(${icon.id}) | ${escapeMarkdown(status.config.name)} | ${escapeMarkdown(describeState(status))}${error} | ${actions} |\n`);
    }
    if (statuses.length > MAX_TOOLTIP_ROWS) {
      md.appendMarkdown(`\n${vscode.l10n.t('…and {0} more', statuses.length - MAX_TOOLTIP_ROWS)}\n`);
    }
    md.appendMarkdown('\n');
  }
  md.appendMarkdown(`[$(run-all) ${vscode.l10n.t('Ping all')}](${commandUri(Commands.pingAll)}) · [$(output) ${vscode.l10n.t('Show log')}](${commandUri(Commands.showLog)}) · [$(list-tree) ${vscode.l10n.t('Servers')}](${commandUri(ViewCommands.focusServers)}) · [$(markdown) ${vscode.l10n.t('Copy report')}](${commandUri(Commands.copyStatusReport)})`);
  return md;
}
