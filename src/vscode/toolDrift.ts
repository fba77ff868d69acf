// Tool drift in the editor: baselines kept per server in workspace storage across reloads, a notification when a
// server's tools change, a diff editor on the before/after JSON, Accept as Baseline, and a warning near VS Code's
// 128-tool limit. The comparison itself is the monitor's (src/core/inventory); this only stores and shows.

import * as vscode from 'vscode';
import { describeDrift } from '../core/inventory/drift';
import { toolsDocumentText, totalTools } from '../core/inventory/toolsDocument';
import type { ToolsBaseline } from '../core/inventory/types';
import type { Logger } from '../core/logger';
import type { MonitorRegistry } from '../core/monitorTypes';
import { redactText } from '../core/redact';
import type { NotificationLevel } from '../present/settingsModel';
import { serverIdFromElement } from '../present/treeModel';
import { pickServer } from './serverPick';
import { Commands } from '../present/commandIds';

const BASELINES_KEY = 'mcpHealth.toolBaselines';
const SCHEME = 'mcp-health-tools';
const SHOW_CHANGES = vscode.l10n.t('Show Changes');
const ACCEPT = vscode.l10n.t('Accept as Baseline');
/** VS Code passes at most this many tools to a model across all servers. */
export const CLIENT_TOOL_LIMIT = 128;

type StoredBaselines = Record<string, ToolsBaseline>;

/**
 * The commands and the diff documents' provider exist from activation on; the watcher behind them is built after
 * activate() returns (or by the first command that needs it), off the activation path.
 */
export function registerToolDriftCommands(watcher: () => ToolDriftWatcher): vscode.Disposable[] {
  return [
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, { provideTextDocumentContent: (uri) => watcher().document(uri) }),
    vscode.commands.registerCommand(Commands.showToolChanges, (element?: unknown) => watcher().showChanges(element)),
    vscode.commands.registerCommand(Commands.acceptToolsBaseline, (element?: unknown) => watcher().accept(element)),
  ];
}

export class ToolDriftWatcher implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private stored: StoredBaselines;
  private limitWarned = false;

  constructor(
    private readonly registry: MonitorRegistry,
    private readonly state: vscode.Memento,
    private readonly level: () => NotificationLevel,
    private readonly logger: Logger,
  ) {
    this.stored = { ...state.get<StoredBaselines>(BASELINES_KEY, {}) };
    const unsubscribe = registry.onEvent((event) => {
      if (event.type === 'servers') this.applyStored();
      else if (event.type === 'inventory') this.onListed(event.id);
      else if (event.type === 'tools-changed') this.announce(event.id, describeDrift(event.drift));
    });
    this.disposables.push({ dispose: unsubscribe });
    this.applyStored();
  }

  dispose(): void {
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
  }

  /** A stored baseline goes to its server before the server's first listing, so drift across a reload is seen. */
  private applyStored(): void {
    for (const status of this.registry.list()) {
      const stored = this.stored[status.config.id];
      if (stored && this.registry.toolsBaseline(status.config.id)?.hash !== stored.hash) {
        this.registry.setToolsBaseline(status.config.id, stored);
      }
    }
  }

  private onListed(id: string): void {
    // Trust on first use: the first complete listing is the baseline, kept from now on.
    const baseline = this.registry.toolsBaseline(id);
    if (baseline && this.stored[id]?.hash !== baseline.hash && !this.registry.get(id)?.drift) this.store(id, baseline);
    this.checkLimit();
  }

  private checkLimit(): void {
    const total = totalTools(
      this.registry
        .list()
        .filter((status) => status.state !== 'disabled')
        .map((status) => status.inventory?.tools?.count),
    );
    if (total <= CLIENT_TOOL_LIMIT) {
      this.limitWarned = false;
      return;
    }
    if (this.limitWarned) return;
    this.limitWarned = true;
    const message = vscode.l10n.t(
      'Your MCP servers offer {0} tools; VS Code passes at most {1} to a model. Turn off tools or servers you do not need.',
      total,
      CLIENT_TOOL_LIMIT,
    );
    this.logger.warn(message);
    if (this.level() !== 'off') void vscode.window.showWarningMessage(message);
  }

  private announce(id: string, summary: string): void {
    const status = this.registry.get(id);
    if (!status || this.level() === 'off') return;
    const message = redactText(
      vscode.l10n.t(
        'MCP server "{0}": tools changed since the accepted baseline ({1}). A changed description can carry instructions to the model.',
        status.config.name,
        summary,
      ),
      status.config.secretValues ?? [],
    );
    void Promise.resolve(vscode.window.showWarningMessage(message, SHOW_CHANGES, ACCEPT)).then((choice) => {
      if (choice === SHOW_CHANGES) void this.showChanges(id);
      else if (choice === ACCEPT) void this.accept(id);
    });
  }

  private async resolve(element: unknown, title: string): Promise<string | undefined> {
    const id = typeof element === 'string' && this.registry.get(element) ? element : serverIdFromElement(element);
    if (id !== undefined) return this.registry.get(id) ? id : undefined;
    const picked = await pickServer(this.registry.list(), { title, filter: (status) => Boolean(status.drift) });
    return typeof picked === 'string' ? picked : undefined;
  }

  async showChanges(element: unknown): Promise<void> {
    const id = await this.resolve(element, vscode.l10n.t('Show tool changes of which server?'));
    const status = id ? this.registry.get(id) : undefined;
    if (!id || !status) return;
    const uri = (side: 'baseline' | 'current') =>
      vscode.Uri.from({ scheme: SCHEME, path: `/${status.config.name}/${side}.json`, query: encodeURIComponent(id) });
    await vscode.commands.executeCommand(
      'vscode.diff',
      uri('baseline'),
      uri('current'),
      vscode.l10n.t('{0}: accepted tools ↔ tools now', status.config.name),
    );
  }

  async accept(element: unknown): Promise<void> {
    const id = await this.resolve(element, vscode.l10n.t('Accept the current tools of which server?'));
    if (!id) return;
    const accepted = this.registry.acceptToolsBaseline(id);
    if (!accepted) {
      void vscode.window.showWarningMessage(vscode.l10n.t('There is no complete tool listing of this server to accept yet.'));
      return;
    }
    this.store(id, accepted);
    this.logger.info(`${this.registry.get(id)?.config.name ?? id}: tools accepted as the new baseline (${accepted.count} tools)`);
  }

  document(uri: vscode.Uri): string {
    const id = decodeURIComponent(uri.query);
    const side = uri.path.endsWith('/baseline.json') ? 'baseline' : 'current';
    const status = this.registry.get(id);
    const tools = side === 'baseline' ? this.registry.toolsBaseline(id) : (status?.inventory?.tools ?? null);
    return status ? redactText(toolsDocumentText(tools), status.config.secretValues ?? []) : '[]\n';
  }

  private store(id: string, baseline: ToolsBaseline): void {
    this.stored = { ...this.stored, [id]: baseline };
    void this.state.update(BASELINES_KEY, this.stored);
  }
}
