// "Restart in VS Code" and "Show VS Code Output": the same server as VS Code's own MCP client runs it (the connection
// chat uses), next to MCP Health's Reconnect (our own monitoring connection). They call VS Code's commands with VS
// Code's id for the server; MCP Health's connection is left alone.

import * as vscode from 'vscode';
import type { MonitorRegistry } from '../core/monitorTypes';
import { serverIdFromElement } from '../present/treeModel';
import { isVsCodeSource, vscodeMcpServerId } from '../present/vscodeMcpId';
import { pickServer } from './serverPick';
import { Commands } from '../present/commandIds';

export const VSCODE_RESTART_COMMAND = 'workbench.mcp.restartServer';
export const VSCODE_OUTPUT_COMMAND = 'workbench.mcp.showOutput';

export function registerVsCodeMcpCommands(registry: MonitorRegistry): vscode.Disposable[] {
  const target = async (element: unknown, title: string): Promise<string | undefined> => {
    const id =
      serverIdFromElement(element) ?? (await pickServer(registry.list(), { title, filter: (status) => isVsCodeSource(status.config) }));
    const status = typeof id === 'string' ? registry.get(id) : undefined;
    if (!status) return undefined;
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
    const vscodeId = vscodeMcpServerId(status.config, folders);
    if (!vscodeId) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('{0} is not run by VS Code itself (it comes from {1}).', status.config.name, status.config.source.file),
      );
    }
    return vscodeId;
  };
  return [
    vscode.commands.registerCommand(Commands.restartInVsCode, async (element?: unknown) => {
      const id = await target(element, vscode.l10n.t("Restart which server in VS Code's own MCP client?"));
      // VS Code starts a stopped server on restart too; its own trust prompt still applies.
      if (id) await vscode.commands.executeCommand(VSCODE_RESTART_COMMAND, id);
      return id;
    }),
    vscode.commands.registerCommand(Commands.showVsCodeOutput, async (element?: unknown) => {
      const id = await target(element, vscode.l10n.t("Show VS Code's output of which server?"));
      if (id) await vscode.commands.executeCommand(VSCODE_OUTPUT_COMMAND, id);
      return id;
    }),
  ];
}
