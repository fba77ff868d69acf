// The Servers tree: the data, the TreeView itself, its badge (servers with a problem, the model every view counts by)
// and its Restricted Mode message. Elements are stable ids; items are built from the registry's current state on demand.

import * as vscode from 'vscode';
import type { ServerStatus } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import { coalesce } from './coalesce';
import { detailRows } from '../present/details';
import { isGuardable, isGuarded } from '../present/guardState';
import { codeBlock, escapeMarkdown } from '../present/markdown';
import { describeState, errorCount, isMonitored, requestCount, restartCount, stateIcon, stateLabels } from '../present/states';
import { badgeFor, summarize } from '../present/summary';
import { buildTree, fileDescription, type TreeModel, type TreeNode } from '../present/treeModel';
import { displayPath, workspaceFolderRefs } from '../present/paths';
import { isVsCodeSource } from '../present/vscodeMcpId';
import { Commands } from '../present/commandIds';
import { uptimeBrief, uptimeRow, type UptimeOf } from '../present/uptime';

const REFRESH_COALESCE_MS = 100;
const VIEW_ID = 'mcpHealth.servers';

export class ServerTreeProvider implements vscode.TreeDataProvider<string>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<string | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly view: vscode.TreeView<string>;
  private model: TreeModel | undefined;
  private readonly refreshSoon = coalesce(() => this.refresh(), REFRESH_COALESCE_MS, { leading: true });
  private readonly unsubscribe: () => void;
  private readonly disposables: vscode.Disposable[] = [];

  /** `decorate` adds what the editor knows beside the monitor (VS Code's own chat.mcp settings); `uptimeOf` the history. */
  constructor(
    private readonly registry: MonitorRegistry,
    private readonly decorate: (status: ServerStatus) => ServerStatus = (status) => status,
    private readonly uptimeOf: UptimeOf = () => null,
  ) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.view, this.changeEmitter);
    this.unsubscribe = registry.onEvent((event) => {
      if (event.type !== 'stderr') {
        this.refreshSoon.schedule();
      }
      if (event.type === 'servers' || event.type === 'state') {
        this.updateBadge();
      }
    });
    if (!vscode.workspace.isTrusted) {
      this.view.message = vscode.l10n.t('Restricted Mode: servers from workspace files are listed but not started. Trust this workspace to monitor them.');
      this.disposables.push(vscode.workspace.onDidGrantWorkspaceTrust(() => { this.view.message = undefined; }));
    }
  }

  private updateBadge(): void {
    // The same model as the status bar and the dashboard: the badge counts servers with a problem.
    this.view.badge = badgeFor(summarize(this.registry.list()));
  }

  refresh(): void {
    this.model = undefined;
    this.changeEmitter.fire(undefined);
  }

  /** For the end-to-end suite: applies any pending refresh now. */
  flush(): void {
    this.refreshSoon.flush();
  }

  private current(): TreeModel {
    this.model ??= buildTree(this.registry.list().map(this.decorate), this.registry.diagnostics(), workspaceFolderRefs(vscode.workspace.workspaceFolders), displayPath, this.uptimeOf);
    return this.model;
  }

  getChildren(element?: string): string[] {
    const model = this.current();
    if (!element) {
      return [...model.roots];
    }
    return [...(model.get(element)?.children ?? [])];
  }

  getParent(element: string): string | undefined {
    return this.current().get(element)?.parent;
  }

  getTreeItem(element: string): vscode.TreeItem {
    const node = this.current().get(element);
    if (!node) {
      // A stale element from before a refresh: render it empty rather than throw inside the workbench.
      return new vscode.TreeItem('', vscode.TreeItemCollapsibleState.None);
    }
    const item = this.itemFor(node);
    item.id = node.id;
    return item;
  }

  private itemFor(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'group': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon(node.folder ? 'root-folder' : 'account');
        item.contextValue = 'group';
        item.tooltip = node.folder ? displayPath(node.folder) : vscode.l10n.t('Servers from your user-level configuration files');
        return item;
      }
      case 'file': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
        item.resourceUri = vscode.Uri.file(node.file);
        item.description = fileDescription(node.label, node.format);
        item.tooltip = displayPath(node.file);
        item.contextValue = 'file';
        if (node.errorCount > 0) {
          item.iconPath = new vscode.ThemeIcon('bracket-error', new vscode.ThemeColor('list.errorForeground'));
        }
        item.command = { command: Commands.openConfig, title: vscode.l10n.t('Open Config'), arguments: [node.id] };
        return item;
      }
      case 'server': {
        const status = this.registry.get(node.serverId);
        return status ? serverItem(this.decorate(status), this.uptimeOf(node.serverId)) : new vscode.TreeItem(node.serverId);
      }
      case 'detail': {
        const item = new vscode.TreeItem(node.row.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.row.value;
        item.tooltip = node.row.full ?? node.row.value;
        item.contextValue = `detail ${node.row.key}`;
        if (node.row.warning) {
          item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        }
        return item;
      }
      case 'problem': {
        const diagnostic = node.diagnostic;
        const item = new vscode.TreeItem(diagnostic.message, vscode.TreeItemCollapsibleState.None);
        item.description = vscode.l10n.t('line {0}', diagnostic.line);
        item.iconPath = new vscode.ThemeIcon(diagnostic.severity === 'error' ? 'error' : 'warning',
          new vscode.ThemeColor(diagnostic.severity === 'error' ? 'list.errorForeground' : 'list.warningForeground'));
        item.contextValue = 'problem';
        item.command = { command: 'vscode.open', title: vscode.l10n.t('Open'), arguments: [vscode.Uri.file(diagnostic.file), { selection: new vscode.Range(diagnostic.line - 1, diagnostic.column - 1, diagnostic.line - 1, diagnostic.column - 1) }] };
        return item;
      }
    }
  }

  dispose(): void {
    this.unsubscribe();
    this.refreshSoon.dispose();
    for (const disposable of this.disposables.splice(0)) {
      disposable.dispose();
    }
  }
}

/** Context values the menus match: `server monitored up`, `server disabled`, `server untrusted needsConsent`. */
function contextValueFor(status: ServerStatus): string {
  const parts = ['server', status.state === 'disabled' ? 'disabled' : isMonitored(status) ? 'monitored' : 'untrusted'];
  if (status.state === 'needs-input') {
    parts.push('needsInput');
  }
  if (status.state === 'needs-consent') {
    parts.push('needsConsent');
  }
  if (isVsCodeSource(status.config)) {
    parts.push('vscodeSource');
  }
  if (status.watchedElsewhere !== undefined) {
    parts.push('elsewhere');
  }
  parts.push(status.state);
  // Which of "Guard This Server" / "Unguard" the item's menu offers.
  if (isGuarded(status)) parts.push('guarded');
  else if (isGuardable(status)) parts.push('guardable');
  return parts.join(' ');
}

function serverItem(status: ServerStatus, uptime: ReturnType<UptimeOf>): vscode.TreeItem {
  const item = new vscode.TreeItem(status.config.name, vscode.TreeItemCollapsibleState.Collapsed);
  const icon = stateIcon(status);
  item.iconPath = new vscode.ThemeIcon(icon.id, icon.color ? new vscode.ThemeColor(icon.color) : undefined);
  const brief = uptimeBrief(uptime);
  item.description = brief ? `${describeState(status)} · ${brief}` : describeState(status);
  item.contextValue = contextValueFor(status);
  item.tooltip = serverTooltip(status, uptime);
  item.accessibilityInformation = { label: `${status.config.name}, ${describeState(status)}` };
  return item;
}

/** Which connection each action acts on: ours (monitoring), another window's, or VS Code's own (chat). */
function connectionsNote(status: ServerStatus): string {
  const guarded = status.guarded;
  if (guarded) {
    return guarded.running
      ? vscode.l10n.t("Guarded: these figures come from mcp-health guard (pid {0}) inside your client's own connection to this server; MCP Health never starts a copy of it. Upstream pid {1}, {2}, {3} ({4}).",
        guarded.guardPid ?? '-', guarded.upstreamPid ?? '-', restartCount(guarded.restarts), requestCount(guarded.requests), errorCount(guarded.errors))
      : vscode.l10n.t('Guarded: run by mcp-health guard inside your client; no guard for it is running (its client has not started it). MCP Health never starts a copy of it.');
  }
  const ours = status.watchedElsewhere !== undefined
    ? vscode.l10n.t("Ping Now and Reconnect act on MCP Health's connection in {0}, which runs this user-level server for every window.", status.watchedElsewhere)
    : vscode.l10n.t("Ping Now and Reconnect act on MCP Health's own monitoring connection.");
  const theirs = isVsCodeSource(status.config)
    ? vscode.l10n.t("Restart in VS Code and Show VS Code Output act on VS Code's own connection to this server (the one chat uses).")
    : undefined;
  return theirs ? `${ours} ${theirs}` : ours;
}

function serverTooltip(status: ServerStatus, uptime: ReturnType<UptimeOf>): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  const icon = stateIcon(status);
  md.appendMarkdown(`$(${icon.id}) **${escapeMarkdown(status.config.name)}** — ${escapeMarkdown(status.guarded ? describeState(status) : stateLabels[status.state])}\n\n`);
  for (const row of detailRows(status)) {
    if (row.key === 'stderr') {
      continue;
    }
    md.appendMarkdown(`- ${row.warning ? '$(warning) ' : ''}${escapeMarkdown(row.label)}: ${escapeMarkdown(row.value)}\n`);
  }
  const kept = uptimeRow(uptime);
  if (kept) md.appendMarkdown(`- ${escapeMarkdown(kept.label)}: ${escapeMarkdown(kept.value)}\n`);
  const stderr = detailRows(status).find((row) => row.key === 'stderr');
  if (stderr?.full) {
    md.appendMarkdown('\nstderr:\n');
    md.appendMarkdown(codeBlock(stderr.full));
  }
  md.appendMarkdown(`\n${escapeMarkdown(displayPath(status.config.source.file))}:${status.config.source.line}`);
  md.appendMarkdown(`\n\n${escapeMarkdown(connectionsNote(status))}`);
  return md;
}
