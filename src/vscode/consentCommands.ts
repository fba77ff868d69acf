// The consent and mode commands; from a tree item they act on that server, from the palette they ask which.

import * as vscode from 'vscode';
import type { ServerStatus } from '../core/model';
import type { MonitorRegistry } from '../core/monitorTypes';
import type { ConsentFlow } from './consent';
import { serverIdFromElement } from '../present/treeModel';
import { ALL, pickServer } from './serverPick';
import { Commands } from '../present/commandIds';

export function registerConsentCommands(flow: ConsentFlow, registry: MonitorRegistry): vscode.Disposable[] {
  const waiting = (status: ServerStatus) => status.state === 'needs-consent';
  const given = (status: ServerStatus) => status.state !== 'needs-consent' && status.state !== 'untrusted' && flow.isAllowed(status.config);
  const targets = async (
    element: unknown,
    title: string,
    filter: (status: ServerStatus) => boolean,
    allowAll?: string,
  ): Promise<ServerStatus[]> => {
    const id = serverIdFromElement(element);
    const picked = id ?? (await pickServer(registry.list(), { title, filter, ...(allowAll ? { allowAll } : {}) }));
    if (picked === ALL) {
      return registry.list().filter(filter);
    }
    const status = picked === undefined ? undefined : registry.get(picked);
    return status ? [status] : [];
  };
  return [
    vscode.commands.registerCommand(Commands.allow, async (element?: unknown) => {
      const chosen = await targets(
        element,
        vscode.l10n.t('Allow which MCP server to start?'),
        waiting,
        vscode.l10n.t('All servers waiting for consent'),
      );
      await flow.allow(chosen.filter(waiting).map((status) => status.config));
    }),
    vscode.commands.registerCommand(Commands.reviewConsent, () => flow.review()),
    vscode.commands.registerCommand(Commands.withdrawConsent, async (element?: unknown) => {
      const chosen = await targets(
        element,
        vscode.l10n.t('Withdraw consent for which MCP server?'),
        given,
        vscode.l10n.t('All allowed servers'),
      );
      if (chosen.length > 0) {
        await flow.withdraw(chosen.map((status) => status.config.id));
      }
    }),
    vscode.commands.registerCommand(Commands.resetConsent, async () => {
      const reset = vscode.l10n.t('Reset');
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t('Forget every consent decision? Every MCP server stops and waits to be allowed again.'),
        { modal: true },
        reset,
      );
      if (choice === reset) {
        await flow.reset();
      }
    }),
    vscode.commands.registerCommand(Commands.setMode, async (element?: unknown) => {
      const [status] = await targets(element, vscode.l10n.t('Set the monitoring mode of which MCP server?'), () => true);
      if (status) {
        await flow.chooseMode(status);
      }
    }),
  ];
}
