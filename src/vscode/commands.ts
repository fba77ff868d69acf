// Every command of the extension. Commands act on the registry and the host's services; views follow by themselves.

import * as vscode from 'vscode';
import type { InputDefinition } from '../core/config/types';
import type { Logger } from '../core/logger';
import type { ProbeResult, ServerStatus } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import { createWorkspaceConfig } from './createConfig';
import { promptForInputs, type InputStore } from './inputs';
import { configTarget } from '../present/configTarget';
import { statusReportMarkdown } from '../present/report';
import { serverDetailsText, type ViewContextOf } from '../present/serverView';
import { formatMs, isMonitored } from '../present/states';
import { pingOutcomeStatusText, pingOutcomeText } from '../present/summary';
import { serverIdFromElement } from '../present/treeModel';
import { ALL, pickServer } from './serverPick';
import type { HealthStatusBar } from './statusBar';
import { displayPath } from '../present/paths';
import { Commands } from '../present/commandIds';

export interface CommandHost {
  readonly registry: MonitorRegistry;
  readonly statusBar: HealthStatusBar;
  readonly inputs: InputStore;
  readonly logger: Logger;
  showLog(): void;
  rediscover(): Promise<void>;
  inputDefinitions(): readonly InputDefinition[];
  setMonitoringEnabled(id: string, enabled: boolean): void;
  showDashboard(): Promise<void>;
  wallClock(): number;
  /** What the views know beside the monitor (src/present/serverView.ts), for what is copied out of them. */
  readonly viewContext?: ViewContextOf;
}

export function registerCommands(host: CommandHost): vscode.Disposable[] {
  const { registry } = host;
  const register = (id: string, handler: (...args: unknown[]) => unknown) => vscode.commands.registerCommand(id, handler);

  const resolve = async (element: unknown, title: string, filter?: (status: ServerStatus) => boolean, allowAll?: string) => {
    const id = serverIdFromElement(element);
    if (id !== undefined) {
      return registry.get(id) ? id : undefined;
    }
    return pickServer(registry.list(), { title, filter, allowAll });
  };

  const pingAll = async (): Promise<ReadonlyMap<string, ProbeResult>> => {
    const asked = registry
      .list()
      .filter((status) => isMonitored(status) && status.state !== 'config-error' && status.state !== 'needs-input').length;
    host.statusBar.setBusy(true);
    try {
      const results = await registry.pingNow();
      const list = [...results.values()];
      const text = pingOutcomeText(list, asked);
      host.logger.info(`ping all: ${text}`);
      host.statusBar.showOutcome(pingOutcomeStatusText(text, list.length === asked && list.every((result) => result.outcome === 'ok')));
      return results;
    } finally {
      host.statusBar.setBusy(false);
    }
  };

  const pingOne = async (id: string): Promise<ReadonlyMap<string, ProbeResult>> => {
    const results = await registry.pingNow(id);
    const result = results.get(id);
    const name = registry.get(id)?.config.name ?? id;
    const text = result
      ? `${name}: ${result.method} ${result.outcome}${result.rttMs !== undefined ? ` · ${formatMs(result.rttMs)}` : ''}${result.outcome !== 'ok' && result.detail ? ` (${result.detail})` : ''}`
      : vscode.l10n.t('{0}: not probed ({1})', name, registry.get(id)?.state ?? 'gone');
    vscode.window.setStatusBarMessage(`$(pulse) ${text}`, 5000);
    return results;
  };

  /** Reconnect on a guarded entry: its guard restarts the server inside the client's connection, or says why not. */
  const restartGuarded = async (id: string, name: string): Promise<void> => {
    const outcomes = (await registry.restartGuarded(id)) ?? [];
    const refused = outcomes.filter((outcome) => !outcome.restarting);
    if (outcomes.length === 0) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'MCP Health: no guard of "{0}" is running. The guard runs inside your client\'s connection: start or restart the server from the client.',
          name,
        ),
      );
    } else if (refused.length > 0) {
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'MCP Health: the guard of "{0}" did not restart the server: {1}',
          name,
          refused.map((outcome) => outcome.detail).join('; '),
        ),
      );
    } else {
      vscode.window.setStatusBarMessage(
        `$(debug-restart) ${vscode.l10n.t('{0}: the guard is restarting the server; the client keeps its connection', name)}`,
        5000,
      );
    }
  };

  return [
    register(Commands.pingAll, pingAll),
    register(Commands.pingNow, async (element?: unknown) => {
      const target = await resolve(element, vscode.l10n.t('Ping which MCP server?'), isMonitored, vscode.l10n.t('All servers'));
      if (target === ALL) {
        return pingAll();
      }
      return target === undefined ? undefined : pingOne(target);
    }),
    register(Commands.reconnect, async (element?: unknown) => {
      const target = await resolve(element, vscode.l10n.t('Reconnect which MCP server?'), isMonitored, vscode.l10n.t('All servers'));
      if (target === undefined) {
        return;
      }
      const status = typeof target === 'string' ? registry.get(target) : undefined;
      if (typeof target === 'string' && status?.guarded) {
        await restartGuarded(target, status.config.name);
        return;
      }
      const name = target === ALL ? vscode.l10n.t('all MCP servers') : (status?.config.name ?? target);
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Reconnecting {0}', name) }, () =>
        registry.reconnect(target === ALL ? undefined : target),
      );
    }),
    register(Commands.reconnectAll, () =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Reconnecting all MCP servers') }, () =>
        registry.reconnect(),
      ),
    ),
    register(Commands.showLog, () => host.showLog()),
    register(Commands.refresh, () => host.rediscover()),
    register(Commands.openConfig, async (element?: unknown) => {
      if (typeof element === 'string' && element.startsWith('file:')) {
        await vscode.window.showTextDocument(vscode.Uri.file(element.slice('file:'.length)));
        return;
      }
      const target = await resolve(element, vscode.l10n.t('Open the config of which MCP server?'));
      const status = typeof target === 'string' ? registry.get(target) : undefined;
      if (!status) {
        return;
      }
      const at = configTarget(status);
      const position = new vscode.Position(Math.max(0, at.line - 1), Math.max(0, at.column - 1));
      await vscode.window.showTextDocument(vscode.Uri.file(status.config.source.file), { selection: new vscode.Range(position, position) });
    }),
    register(Commands.enableMonitoring, async (element?: unknown) => {
      const target = await resolve(
        element,
        vscode.l10n.t('Monitor which MCP server again?'),
        (s) => s.state === 'disabled',
        vscode.l10n.t('All disabled servers'),
      );
      for (const id of target === ALL
        ? registry
            .list()
            .filter((s) => s.state === 'disabled')
            .map((s) => s.config.id)
        : target
          ? [target]
          : []) {
        host.setMonitoringEnabled(id, true);
      }
    }),
    register(Commands.disableMonitoring, async (element?: unknown) => {
      const target = await resolve(element, vscode.l10n.t('Stop monitoring which MCP server?'), isMonitored);
      if (typeof target === 'string') {
        host.setMonitoringEnabled(target, false);
      }
    }),
    register(Commands.copyDetails, async (element?: unknown) => {
      const target = await resolve(element, vscode.l10n.t('Copy the details of which MCP server?'));
      const status = typeof target === 'string' ? registry.get(target) : undefined;
      if (status) {
        await vscode.env.clipboard.writeText(serverDetailsText(status, host.viewContext?.(status)));
        vscode.window.setStatusBarMessage(vscode.l10n.t('$(copy) Copied the details of {0}', status.config.name), 3000);
      }
    }),
    register(Commands.copyStatusReport, async () => {
      await vscode.env.clipboard.writeText(statusReportMarkdown(registry.list(), host.wallClock(), displayPath, host.viewContext));
      vscode.window.setStatusBarMessage(vscode.l10n.t('$(markdown) Copied the MCP status report (Markdown)'), 3000);
    }),
    register(Commands.supplyInput, async (element?: unknown) => {
      const target = await resolve(
        element,
        vscode.l10n.t('Supply inputs for which MCP server?'),
        (s) => (s.config.missingInputs?.length ?? 0) > 0,
      );
      const status = typeof target === 'string' ? registry.get(target) : undefined;
      if (!status) {
        return;
      }
      const stored = await promptForInputs(status.config, host.inputDefinitions(), host.inputs);
      if (stored > 0) {
        await host.rediscover();
      }
    }),
    register(Commands.clearInputs, async () => {
      const forget = vscode.l10n.t('Forget');
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t('Forget every ${input:…} value MCP Health stored? Servers that need them will wait for input again.'),
        { modal: true },
        forget,
      );
      if (choice === forget) {
        await host.inputs.clear();
        await host.rediscover();
      }
    }),
    register(Commands.createConfig, () => createWorkspaceConfig()),
    register(Commands.showDashboard, () => host.showDashboard()),
  ];
}
