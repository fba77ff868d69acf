// History in the editor: kept per workspace in the extension's storage (global storage without a folder), fed by the
// registry, shown as uptime in the tree and the dashboard, exported and cleared by command. Reading, writing and
// repairing the file are src/history's; this only wires them to the editor.

import * as os from 'node:os';
import * as vscode from 'vscode';
import { systemClock } from '../core/clock';
import { csv, historyRecords, HistoryRecorder, jsonLines, recordHistory, type UptimeWindows } from '../core/history';
import type { Logger } from '../core/logger';
import type { MonitorRegistry } from '../core/monitorTypes';
import { HistoryStore } from '../history/historyStore';
import { Commands } from '../present/commandIds';

export const HISTORY_FILE = 'history.json';

/**
 * The commands exist from activation on; the history behind them (and its file read) is built after activate()
 * returns, or by the first of these commands if that comes sooner.
 */
export function registerHistoryCommands(history: () => EditorHistory): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Commands.exportHistory, (target?: unknown) => history().export(target)),
    vscode.commands.registerCommand(Commands.clearHistory, (confirmed?: unknown) => history().clear(confirmed === true)),
  ];
}

/**
 * The recorder and its feed from the registry, built before any view subscribes: listeners run in the order they
 * subscribed, and a view that renders a probe at once must read the uptime that probe has just made (the first answered
 * probe turns the time since the handshake into verified time), not the figure from before it.
 */
export function createHistoryRecorder(registry: Pick<MonitorRegistry, 'onEvent' | 'list'>): {
  readonly recorder: HistoryRecorder;
  readonly feed: vscode.Disposable;
} {
  const recorder = new HistoryRecorder(() => systemClock.wall());
  return { recorder, feed: { dispose: recordHistory(registry, recorder) } };
}

export class EditorHistory implements vscode.Disposable {
  readonly store: HistoryStore;
  private closing: Promise<void> | undefined;
  /** Settles once the file was read (or found missing or broken): the views show restored uptime from then on. */
  readonly loaded: Promise<void>;

  /** `recorder`: from createHistoryRecorder, already fed; this adds the file behind it and the commands. */
  constructor(
    context: vscode.ExtensionContext,
    readonly recorder: HistoryRecorder,
    private readonly logger: Logger,
    onLoaded: () => void,
  ) {
    const folder = context.storageUri ?? context.globalStorageUri;
    this.store = new HistoryStore({
      file: vscode.Uri.joinPath(folder, HISTORY_FILE).fsPath,
      recorder: this.recorder,
      clock: systemClock,
      logger,
    });
    this.loaded = this.store.load().then(
      (outcome) => {
        logger.info(`history: ${outcome} ${this.store.file}`);
        onLoaded();
      },
      (error: unknown) => logger.warn(`history: could not load ${this.store.file} (${String(error)})`),
    );
  }

  uptimeOf = (serverId: string): UptimeWindows | null => (this.recorder.has(serverId) ? this.recorder.uptime(serverId) : null);

  /** The user picks the file; `.csv` writes CSV, anything else JSON lines. A Uri argument skips the dialog. */
  async export(target: unknown): Promise<vscode.Uri | undefined> {
    const uri =
      target instanceof vscode.Uri
        ? target
        : await vscode.window.showSaveDialog({
            title: vscode.l10n.t('Export MCP Server History'),
            saveLabel: vscode.l10n.t('Export'),
            defaultUri: vscode.Uri.joinPath(
              vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir()),
              'mcp-health-history.jsonl',
            ),
            filters: { [vscode.l10n.t('JSON Lines')]: ['jsonl'], CSV: ['csv'] },
          });
    if (!uri) return undefined;
    this.recorder.settle();
    const records = historyRecords(this.recorder.servers());
    const text = uri.path.toLowerCase().endsWith('.csv') ? csv(records) : jsonLines(records);
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
    this.logger.info(`history: exported ${records.length} record(s) to ${uri.fsPath}`);
    if (!(target instanceof vscode.Uri))
      void vscode.window.showInformationMessage(vscode.l10n.t('Exported {0} history records to {1}.', records.length, uri.fsPath));
    return uri;
  }

  async clear(confirmed: boolean): Promise<void> {
    const CLEAR = vscode.l10n.t('Clear History');
    const answer = confirmed
      ? CLEAR
      : await vscode.window.showWarningMessage(
          vscode.l10n.t('Forget the uptime and probe history of every MCP server in this workspace?'),
          { modal: true },
          CLEAR,
        );
    if (answer !== CLEAR) return;
    await this.store.clear();
    this.logger.info(`history: cleared ${this.store.file}`);
  }

  dispose(): void {
    this.closing ??= this.store.dispose();
  }

  /** The last write, started by dispose(). */
  closed(): Promise<void> {
    return this.closing ?? Promise.resolve();
  }
}
