// What activate() returns. In ExtensionMode.Test: McpHealthApi, the end-to-end suite's handle on the internals
// (the registry with resolved secrets, storeInput). Anywhere else: McpHealthPublicApi, read-only and redacted.

import * as vscode from 'vscode';
import type { ServerState } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import type { ExtensionSettings } from '../present/settingsModel';

/** Test mode only: never handed to other extensions in normal use. */
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

/** One server as other extensions see it: no command, args, env, headers, URL or secret, only where it is declared. */
export interface PublicServerStatus {
  readonly id: string;
  readonly name: string;
  readonly state: ServerState;
  /** Round trip of the last answered probe, ms; null before one. */
  readonly rttMs: number | null;
  readonly source: { readonly file: string; readonly line: number };
}

/**
 * The documented API for other extensions (`vscode.extensions.getExtension('mcp-health.mcp-health').exports`):
 * read-only snapshots and a change event. Nothing in it can start, stop or configure a server or store an input.
 */
export interface McpHealthPublicApi {
  readonly apiVersion: 1;
  servers(): readonly PublicServerStatus[];
  /** Fires when servers are added or removed or a server changes state. */
  readonly onDidChange: vscode.Event<void>;
}

export function createPublicApi(registry: MonitorRegistry): vscode.Disposable & { readonly value: McpHealthPublicApi } {
  const emitter = new vscode.EventEmitter<void>();
  const unsubscribe = registry.onEvent((event) => {
    if (event.type === 'servers' || event.type === 'state') {
      emitter.fire();
    }
  });
  const value: McpHealthPublicApi = Object.freeze({
    apiVersion: 1 as const,
    servers: () =>
      Object.freeze(
        registry.list().map((status) =>
          Object.freeze({
            id: status.config.id,
            name: status.config.name,
            state: status.state,
            rttMs: status.lastRttMs,
            source: Object.freeze({ file: status.config.source.file, line: status.config.source.line }),
          }),
        ),
      ),
    onDidChange: emitter.event,
  });
  return {
    value,
    dispose: () => {
      unsubscribe();
      emitter.dispose();
    },
  };
}
