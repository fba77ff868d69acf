// The Servers tree: the data, the TreeView itself, its badge (servers with a problem, the model every view counts by)
// and its Restricted Mode message. Elements are stable ids; the shape and every server's view are built from one
// snapshot of the registry (src/present/treeModel.ts, src/present/serverView.ts), which items are made from.

import * as vscode from 'vscode';
import type { MonitorRegistry } from '../core/monitorTypes';
import { coalesce } from './coalesce';
import type { ViewContextOf } from '../present/serverView';
import { badgeFor, summarize } from '../present/summary';
import { serverTooltipMarkdown } from '../present/tooltips';
import { buildTree, changedElements, fileDescription, type ServerNode, type TreeModel, type TreeNode } from '../present/treeModel';
import { displayPath, workspaceFolderRefs } from '../present/paths';
import { Commands } from '../present/commandIds';

const REFRESH_COALESCE_MS = 100;
const VIEW_ID = 'mcpHealth.servers';

export class ServerTreeProvider implements vscode.TreeDataProvider<string>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<string | string[] | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly view: vscode.TreeView<string>;
  private model: TreeModel | undefined;
  private readonly refreshSoon = coalesce(() => this.repaint(), REFRESH_COALESCE_MS, { leading: true });
  /** Servers whose status changed since the last repaint; 'all' once the list itself changed. */
  private changed: Set<string> | 'all' = 'all';
  private readonly unsubscribe: () => void;
  private readonly disposables: vscode.Disposable[] = [];

  /** `contextOf`: what the editor knows beside the monitor (VS Code's own chat.mcp settings, the kept uptime). */
  constructor(
    private readonly registry: MonitorRegistry,
    private readonly contextOf: ViewContextOf = () => ({}),
  ) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.view, this.changeEmitter);
    this.unsubscribe = registry.onEvent((event) => {
      if (event.type === 'stderr') return;
      if (this.changed !== 'all') {
        if ('id' in event) this.changed.add(event.id);
        else this.changed = 'all';
      }
      this.refreshSoon.schedule();
      if (event.type === 'servers' || event.type === 'state') this.updateBadge();
    });

    if (!vscode.workspace.isTrusted) {
      this.view.message = vscode.l10n.t(
        'Restricted Mode: servers from workspace files are listed but not started. Trust this workspace to monitor them.',
      );
      this.disposables.push(
        vscode.workspace.onDidGrantWorkspaceTrust(() => {
          this.view.message = undefined;
        }),
      );
    }
  }

  private updateBadge(): void {
    // The same model as the status bar and the dashboard: the badge counts servers with a problem.
    this.view.badge = badgeFor(summarize(this.registry.list()));
  }

  /** Everything again (the kept uptime or VS Code's chat.mcp settings changed, which any row may show). */
  refresh(): void {
    this.changed = 'all';
    this.repaint();
  }

  private repaint(): void {
    const before = this.model;
    const changed = this.changed;
    this.changed = new Set();
    this.model = undefined;
    const elements = before ? changedElements(changed, before, this.current()) : null;
    if (elements === null) this.changeEmitter.fire(undefined);
    else if (elements.length > 0) this.changeEmitter.fire(elements);
  }

  /** For the end-to-end suite: applies any pending refresh now. */
  flush(): void {
    this.refreshSoon.flush();
  }

  private current(): TreeModel {
    this.model ??= buildTree(
      this.registry.list(),
      this.registry.diagnostics(),
      workspaceFolderRefs(vscode.workspace.workspaceFolders),
      displayPath,
      this.contextOf,
    );
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
      case 'server':
        return serverItem(node);
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
        item.iconPath = new vscode.ThemeIcon(
          diagnostic.severity === 'error' ? 'error' : 'warning',
          new vscode.ThemeColor(diagnostic.severity === 'error' ? 'list.errorForeground' : 'list.warningForeground'),
        );
        item.contextValue = 'problem';
        item.command = {
          command: 'vscode.open',
          title: vscode.l10n.t('Open'),
          arguments: [
            vscode.Uri.file(diagnostic.file),
            { selection: new vscode.Range(diagnostic.line - 1, diagnostic.column - 1, diagnostic.line - 1, diagnostic.column - 1) },
          ],
        };
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

/** The server's view as a TreeItem: nothing is decided here. */
function serverItem({ view }: ServerNode): vscode.TreeItem {
  const item = new vscode.TreeItem(view.label, vscode.TreeItemCollapsibleState.Collapsed);
  item.iconPath = new vscode.ThemeIcon(view.icon.id, view.icon.color ? new vscode.ThemeColor(view.icon.color) : undefined);
  item.description = view.description;
  item.contextValue = view.contextValue;
  item.tooltip = new vscode.MarkdownString(serverTooltipMarkdown(view, displayPath), true);
  item.accessibilityInformation = { label: view.accessibilityLabel };
  return item;
}
