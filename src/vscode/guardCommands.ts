// "Guard This Server" and "Unguard": rewrite one entry of its config file, after showing the diff and asking. Nothing
// is written without the command and the confirmation; the edit goes through the editor so Undo works. Only the
// registration lives here; the rewrite itself (guardEntryEdit.ts) is loaded on the first use of either command.

import * as vscode from 'vscode';
import type { ServerStatus } from '../core/model';
import { isGuardable, isGuarded } from '../present/guardState';
import { serverIdFromElement } from '../present/treeModel';
import { pickServer } from './serverPick';
import { Commands } from '../present/commandIds';
import { rewriteGuardedEntry, type GuardCommandHost, type ProposedTexts } from './guardEntryEdit';

const PROPOSED_SCHEME = 'mcp-health-proposed';

export function registerGuardCommands(host: GuardCommandHost): vscode.Disposable[] {
  // The proposed text of each pending rewrite, shown read-only on the right of the diff.
  const texts = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = {
    onDidChange: changed.event,
    provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? '',
  };
  const proposals: ProposedTexts = {
    show(file, tag, text) {
      const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: file, query: tag });
      texts.set(uri.toString(), text);
      changed.fire(uri);
      return uri;
    },
    drop: (uri) => texts.delete(uri.toString()),
  };

  const target = async (element: unknown, title: string, filter: (status: ServerStatus) => boolean): Promise<ServerStatus | undefined> => {
    const id = serverIdFromElement(element) ?? (await pickServer(host.registry.list(), { title, filter }));
    return typeof id === 'string' ? host.registry.get(id) : undefined;
  };

  return [
    changed,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, provider),
    vscode.commands.registerCommand(Commands.guardServer, async (element?: unknown) => {
      const status = await target(element, vscode.l10n.t('Run which MCP server through mcp-health guard?'), isGuardable);
      if (status) await rewriteGuardedEntry(host, proposals, status, 'Guard');
    }),
    vscode.commands.registerCommand(Commands.unguardServer, async (element?: unknown) => {
      const status = await target(element, vscode.l10n.t('Remove the guard from which MCP server?'), isGuarded);
      if (status) await rewriteGuardedEntry(host, proposals, status, 'Unguard');
    }),
  ];
}
