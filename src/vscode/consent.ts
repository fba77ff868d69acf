// Asks before anything is started or contacted: one notification per discovery that found servers nobody allowed yet,
// a Review picker with what each would run and its mode, and the commands to allow, withdraw and reset decisions.

import * as vscode from 'vscode';
import { ConsentStore } from '../core/consent/consentStore';
import type { Logger } from '../core/logger';
import type { ServerConfig, ServerStatus } from '../core/model';
import type { TrustAwareRegistry } from '../core/monitor';
import { modeFor } from '../core/monitor/intervals';
import { MONITOR_MODES, type MonitorMode, type MonitorSettings } from '../core/monitorTypes';
import {
  ConsentPromptPolicy,
  consentMessage,
  describeChanges,
  describeEnv,
  modeLabels,
  nextMode,
  whatWouldRun,
} from '../present/consentModel';
import { SECTION } from './settings';
import { displayPath } from '../present/paths';

const ALLOW = vscode.l10n.t('Allow');
const REVIEW = vscode.l10n.t('Review…');
const NOT_NOW = vscode.l10n.t('Not Now');

interface ReviewItem extends vscode.QuickPickItem {
  readonly status: ServerStatus;
  mode: MonitorMode;
}

export class ConsentFlow implements vscode.Disposable {
  private readonly policy = new ConsentPromptPolicy();
  private readonly windowState: vscode.Disposable;
  private readonly modeButton: vscode.QuickInputButton = {
    iconPath: new vscode.ThemeIcon('settings-gear'),
    tooltip: vscode.l10n.t('Change mode (watch, check, off)'),
  };

  constructor(
    private readonly store: ConsentStore,
    private readonly registry: TrustAwareRegistry,
    private readonly monitorSettings: () => MonitorSettings,
    private readonly logger: Logger,
  ) {
    // Decisions live in globalState, shared by every window: coming back to this window picks up what another decided.
    this.windowState = vscode.window.onDidChangeWindowState((state) => {
      if (state.focused) {
        this.offer();
      }
    });
  }

  isAllowed(config: ServerConfig): boolean {
    return this.store.isAllowed(config);
  }

  waiting(): ServerStatus[] {
    return this.registry.list().filter((status) => status.state === 'needs-consent');
  }

  /** After each discovery (and when trust is granted): one notification, unless one is open or all were dismissed. */
  offer(): void {
    this.registry.refreshGates();
    const waiting = this.waiting();
    if (!this.policy.shouldAsk(waiting.map((status) => this.keyOf(status.config)))) {
      return;
    }
    this.policy.opened();
    void (async () => {
      try {
        const choice = await vscode.window.showInformationMessage(
          consentMessage(waiting, shortPath, (config) => this.store.changes(config)),
          ALLOW,
          REVIEW,
          NOT_NOW,
        );
        if (choice === ALLOW) {
          await this.allow(this.stillWaiting(waiting).map((status) => status.config));
        } else if (choice === REVIEW) {
          await this.review(this.stillWaiting(waiting));
        } else {
          this.dismiss(waiting);
        }
      } finally {
        this.policy.closed();
      }
    })();
  }

  async allow(configs: readonly ServerConfig[]): Promise<void> {
    if (configs.length === 0) {
      return;
    }
    await this.store.allow(configs);
    this.logger.info(`consent given for ${configs.map((config) => config.name).join(', ')}`);
    this.registry.refreshGates();
  }

  async withdraw(ids: readonly string[]): Promise<void> {
    await this.store.withdraw(ids);
    this.logger.info(`consent withdrawn for ${ids.length} server(s)`);
    // Withdrawn on purpose: do not ask again in this window until its definition changes.
    this.policy.dismiss(
      ids.flatMap((id) => {
        const status = this.registry.get(id);
        return status ? [this.keyOf(status.config)] : [];
      }),
    );
    this.registry.refreshGates();
  }

  async reset(): Promise<void> {
    await this.store.reset();
    this.policy.forget();
    this.logger.info('every stored consent decision was reset');
    this.registry.refreshGates();
    this.offer();
  }

  /** The picker: every waiting server with what would run; checked ones are allowed, each with its mode. */
  async review(statuses: readonly ServerStatus[] = this.waiting()): Promise<void> {
    if (statuses.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No MCP server is waiting for consent.'));
      return;
    }
    const settings = this.monitorSettings();
    const items: ReviewItem[] = statuses.map((status) => this.reviewItem(status, modeFor(status.config, settings)));
    const picker = vscode.window.createQuickPick<ReviewItem>();
    picker.title = vscode.l10n.t('MCP Health: start watching these servers?');
    picker.placeholder = vscode.l10n.t(
      "Checked servers are allowed to start. The gear button changes a server's mode (watch, check, off).",
    );
    picker.canSelectMany = true;
    picker.matchOnDescription = true;
    picker.matchOnDetail = true;
    picker.items = items;
    picker.selectedItems = items;
    const accepted = await new Promise<readonly ReviewItem[] | undefined>((resolve) => {
      picker.onDidTriggerItemButton(({ item }) => {
        const selected = new Set(picker.selectedItems.map((chosen) => chosen.status.config.id));
        const index = items.indexOf(item);
        items[index] = this.reviewItem(item.status, nextMode(item.mode));
        picker.items = [...items];
        picker.selectedItems = items.filter((candidate) => selected.has(candidate.status.config.id));
      });
      picker.onDidAccept(() => {
        resolve(picker.selectedItems);
        picker.hide();
      });
      picker.onDidHide(() => resolve(undefined));
      picker.show();
    });
    picker.dispose();
    if (!accepted) {
      this.dismiss(statuses);
      return;
    }
    for (const item of accepted) {
      if (item.mode !== modeFor(item.status.config, settings)) {
        await setServerMode(item.status.config.name, item.mode);
      }
    }
    this.dismiss(statuses.filter((status) => !accepted.some((item) => item.status === status)));
    await this.allow(accepted.map((item) => item.status.config));
  }

  /** Tree action and command: choose watch, check or off for one server; kept in `mcpHealth.serverOverrides`. */
  async chooseMode(status: ServerStatus): Promise<void> {
    const current = modeFor(status.config, this.monitorSettings());
    const picked = await vscode.window.showQuickPick(
      MONITOR_MODES.map((mode) => ({
        label: mode,
        description: mode === current ? vscode.l10n.t('(current)') : '',
        detail: modeLabels[mode],
        mode,
      })),
      { title: vscode.l10n.t('Monitoring mode of {0}', status.config.name) },
    );
    if (picked && picked.mode !== current) {
      await setServerMode(status.config.name, picked.mode);
    }
  }

  dispose(): void {
    this.windowState.dispose();
    this.policy.forget();
  }

  private reviewItem(status: ServerStatus, mode: MonitorMode): ReviewItem {
    return {
      status,
      mode,
      label: status.config.name,
      description: `[${mode}] ${whatWouldRun(status)}`,
      detail: [
        `${shortPath(status.config.source.file)}:${status.config.source.line} · ${modeLabels[mode]}`,
        describeChanges(this.store.changes(status.config) ?? []),
        describeEnv(status.config),
      ]
        .filter((part) => part.length > 0)
        .join(' · '),
      buttons: [this.modeButton],
    };
  }

  /** A "Not Now" holds for this definition only: the keyed hash, so a changed one asks again. */
  private keyOf(config: ServerConfig): string {
    return `${config.id}\n${this.store.hashOf(config)}`;
  }

  private dismiss(statuses: readonly ServerStatus[]): void {
    this.policy.dismiss(statuses.map((status) => this.keyOf(status.config)));
  }

  /** Only servers still waiting, with their current definition: the files may have changed while the prompt was open. */
  private stillWaiting(asked: readonly ServerStatus[]): ServerStatus[] {
    const askedKeys = new Set(asked.map((status) => this.keyOf(status.config)));
    return this.waiting().filter((status) => askedKeys.has(this.keyOf(status.config)));
  }
}

/** `.vscode/mcp.json` for a workspace file (with the folder name in a multi-root window), `~/...` for a user file. */
function shortPath(file: string): string {
  const relative = vscode.workspace.asRelativePath(file, (vscode.workspace.workspaceFolders?.length ?? 0) > 1);
  return relative !== file ? relative : displayPath(file);
}

/** Writes the mode into the user's `mcpHealth.serverOverrides`, keeping the other per-server settings. */
async function setServerMode(name: string, mode: MonitorMode): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const current = config.inspect<Record<string, Record<string, unknown>>>('serverOverrides')?.globalValue ?? {};
  await config.update('serverOverrides', { ...current, [name]: { ...current[name], mode } }, vscode.ConfigurationTarget.Global);
}
