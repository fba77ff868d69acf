// What activate() returns: a small surface for the end-to-end suite and for other extensions that want the states.

import type * as vscode from 'vscode';
import type { MonitorRegistry } from '../core/monitorTypes';
import type { ExtensionSettings } from './present/settingsModel';

export interface McpHealthApi {
  readonly registry: MonitorRegistry;
  /** Discovers again and reconciles; resolves when the registry has the new servers. */
  refresh(): Promise<void>;
  readonly tree: vscode.TreeDataProvider<string>;
  readonly treeView: vscode.TreeView<string>;
  /** Applies coalesced view updates now. */
  flushViews(): void;
  statusBar(): { text: string; tooltip: string; visible: boolean; background: string | undefined };
  diagnostics(): Array<[vscode.Uri, readonly vscode.Diagnostic[]]>;
  watchedPatterns(): string[];
  settings(): ExtensionSettings;
  storeInput(id: string, value: string): Promise<void>;
  /** Fires after every discovery run, including those started by file watchers and settings. */
  readonly onDidDiscover: vscode.Event<void>;
  /** How many failure/recovery notifications were shown for one server. */
  notificationsShown(serverId: string): number;
  /** Every failure notification shown so far: one entry per toast, with the servers it tells about. */
  notificationGroups(): ReadonlyArray<{ readonly message: string; readonly ids: readonly string[] }>;
  dashboard(): { readonly open: boolean; readonly renderedServers: number | undefined };
}
