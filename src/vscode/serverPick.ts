// QuickPicks that choose a server when a command runs from the palette instead of a tree item.

import * as vscode from 'vscode';
import type { ServerStatus } from '../core/model';
import { describeState, stateIcon } from '../present/states';
import { displayPath } from '../present/paths';

export const ALL = Symbol('all servers');

interface ServerPickItem extends vscode.QuickPickItem {
  readonly target: string | typeof ALL;
}

export async function pickServer(
  statuses: readonly ServerStatus[],
  options: { readonly title: string; readonly allowAll?: string; readonly filter?: (status: ServerStatus) => boolean },
): Promise<string | typeof ALL | undefined> {
  const candidates = statuses.filter(options.filter ?? (() => true));
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('MCP Health: no server fits.'));
    return undefined;
  }
  const items: ServerPickItem[] = [];
  if (options.allowAll && candidates.length > 1) {
    items.push({ label: `$(run-all) ${options.allowAll}`, description: vscode.l10n.t('{0} servers', candidates.length), target: ALL });
    items.push({ label: '', kind: vscode.QuickPickItemKind.Separator, target: ALL });
  }
  for (const status of candidates) {
    items.push({
      label: `$(${stateIcon(status).id}) ${status.config.name}`,
      description: describeState(status),
      detail: `${displayPath(status.config.source.file)}:${status.config.source.line}`,
      target: status.config.id,
    });
  }
  const picked = await vscode.window.showQuickPick(items, { title: options.title, matchOnDescription: true, matchOnDetail: true });
  return picked?.target;
}
