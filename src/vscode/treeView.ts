// The Servers tree. Elements are stable ids; items are built from the registry's current state on demand.

import * as vscode from 'vscode';
import type { ServerStatus } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import { coalesce } from './coalesce';
import { detailRows } from '../present/details';
import { isGuardable, isGuarded } from '../present/guardState';
import { codeBlock, escapeMarkdown } from '../present/markdown';
import { describeState, isMonitored, plural, stateIcon, stateLabels } from '../present/states';
import { buildTree, fileDescription, type TreeModel, type TreeNode } from '../present/treeModel';
import { displayPath, workspaceFolderRefs } from '../present/paths';
import { isVsCodeSource } from '../present/vscodeMcpId';
import { Commands } from '../present/commandIds';
import { uptimeBrief, uptimeRow, type UptimeOf } from '../present/uptime';

const REFRESH_COALESCE_MS = 100;

export class ServerTreeProvider implements vscode.TreeDataProvider<string>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<string | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private model: TreeModel | undefined;
  private readonly refreshSoon = coalesce(() => this.refresh(), REFRESH_COALESCE_MS, { leading: true });
  private readonly unsubscribe: () => void;

  constructor(private readonly registry: MonitorRegistry, private readonly uptimeOf: UptimeOf = () => null) {
    this.unsubscribe = registry.onEvent((event) => {
      if (event.type !== 'stderr') {
        this.refreshSoon.schedule();
      }
    });
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
    this.model ??= buildTree(this.registry.list(), this.registry.diagnostics(), workspaceFolderRefs(vscode.workspace.workspaceFolders), displayPath, this.uptimeOf);
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
        item.command = { command: Commands.openConfig, title: 'Open Config', arguments: [node.id] };
        return item;
      }
      case 'server': {
        const status = this.registry.get(node.serverId);
        return status ? serverItem(status, this.uptimeOf(node.serverId)) : new vscode.TreeItem(node.serverId);
      }
      case 'detail': {
        const item = new vscode.TreeItem(node.row.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.row.value;
        item.tooltip = node.row.full ?? node.row.value;
        item.contextValue = `detail ${node.row.key}`;
        return item;
      }
      case 'problem': {
        const diagnostic = node.diagnostic;
        const item = new vscode.TreeItem(diagnostic.message, vscode.TreeItemCollapsibleState.None);
        item.description = vscode.l10n.t('line {0}', diagnostic.line);
        item.iconPath = new vscode.ThemeIcon(diagnostic.severity === 'error' ? 'error' : 'warning',
          new vscode.ThemeColor(diagnostic.severity === 'error' ? 'list.errorForeground' : 'list.warningForeground'));
        item.contextValue = 'problem';
        item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(diagnostic.file), { selection: new vscode.Range(diagnostic.line - 1, diagnostic.column - 1, diagnostic.line - 1, diagnostic.column - 1) }] };
        return item;
      }
    }
  }

  dispose(): void {
    this.unsubscribe();
    this.refreshSoon.dispose();
    this.changeEmitter.dispose();
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
  if (status.guarded) {
    return status.guarded.running
      ? `Guarded: these figures come from mcp-health guard (pid ${status.guarded.guardPid ?? '-'}) inside your client's own connection to this server; MCP Health never starts a copy of it. Upstream pid ${status.guarded.upstreamPid ?? '-'}, ${plural(status.guarded.restarts, 'restart')}, ${plural(status.guarded.requests, 'request')} (${plural(status.guarded.errors, 'error')}).`
      : 'Guarded: run by mcp-health guard inside your client; no guard for it is running (its client has not started it). MCP Health never starts a copy of it.';
  }
  const ours = status.watchedElsewhere !== undefined
    ? `Ping Now and Reconnect act on MCP Health's connection in ${status.watchedElsewhere}, which runs this user-level server for every window.`
    : "Ping Now and Reconnect act on MCP Health's own monitoring connection.";
  const theirs = isVsCodeSource(status.config)
    ? " Restart in VS Code and Show VS Code Output act on VS Code's own connection to this server (the one chat uses)."
    : '';
  return ours + theirs;
}

function serverTooltip(status: ServerStatus, uptime: ReturnType<UptimeOf>): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  const icon = stateIcon(status);
  md.appendMarkdown(`$(${icon.id}) **${escapeMarkdown(status.config.name)}** — ${escapeMarkdown(status.guarded ? describeState(status) : stateLabels[status.state])}\n\n`);
  for (const row of detailRows(status)) {
    if (row.key === 'stderr') {
      continue;
    }
    md.appendMarkdown(`- ${escapeMarkdown(row.label)}: ${escapeMarkdown(row.value)}\n`);
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
