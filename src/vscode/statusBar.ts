// The status bar aggregate: `$(pulse) MCP 4/5 $(warning)` (healthy/monitored and the worst problem), coloured by the
// worst state, with a row per server in its tooltip.

import * as vscode from 'vscode';
import type { MonitorRegistry } from '../core/monitorTypes';
import { coalesce } from './coalesce';
import type { StatusBarVisibility } from '../present/settingsModel';
import { serverViews, type ViewContextOf } from '../present/serverView';
import { healthSentence, statusBarText, summarize } from '../present/summary';
import { MAX_TOOLTIP_ROWS, STATUS_TOOLTIP_COMMANDS, statusBarTooltipMarkdown } from '../present/tooltips';
import { Commands } from '../present/commandIds';

const OUTCOME_VISIBLE_MS = 4000;

export class HealthStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  /** A state change shows within a frame; what only probes change (latencies in the tooltip) at most 10 times a second. */
  private readonly renderStateSoon = coalesce(() => this.render(), 16, { leading: true });
  private readonly renderSoon = coalesce(() => this.render(), 100, { leading: true });
  private readonly unsubscribe: () => void;
  private busy = false;
  private visible = false;
  private outcome: { text: string; timer: NodeJS.Timeout } | undefined;

  /** `contextOf`: what the editor knows beside the monitor (VS Code's chat.mcp settings, the kept uptime). */
  constructor(
    private readonly registry: MonitorRegistry,
    private visibility: StatusBarVisibility,
    private readonly contextOf: ViewContextOf = () => ({}),
  ) {
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
    this.outcome = {
      text,
      timer: setTimeout(() => {
        this.clearOutcome();
        this.render();
      }, OUTCOME_VISIBLE_MS),
    };
    this.render();
  }

  /** For the end-to-end suite: what the user sees. */
  snapshot(): { text: string; tooltip: string; visible: boolean; background: string | undefined } {
    this.renderStateSoon.flush();
    this.renderSoon.flush();
    const tooltip = this.item.tooltip;
    return {
      text: this.item.text,
      tooltip: typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? ''),
      visible: this.visible,
      background: this.item.backgroundColor?.id,
    };
  }

  render(): void {
    const statuses = this.registry.list();
    const summary = summarize(statuses);
    this.item.text = this.outcome && !this.busy ? this.outcome.text : statusBarText(summary, this.busy);
    this.item.backgroundColor =
      summary.worst === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : summary.worst === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('MCP Health: {0}', healthSentence(summary)) };
    const tooltip = new vscode.MarkdownString(
      statusBarTooltipMarkdown(serverViews(statuses.slice(0, MAX_TOOLTIP_ROWS), this.contextOf), summary, statuses.length),
      true,
    );
    tooltip.isTrusted = { enabledCommands: [...STATUS_TOOLTIP_COMMANDS] };
    tooltip.supportHtml = false;
    this.item.tooltip = tooltip;
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
