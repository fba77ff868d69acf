// "Create .vscode/mcp.json": the welcome view's button. Writes only on this explicit command, never over a file.

import * as vscode from 'vscode';

export const MCP_JSON_TEMPLATE = `{
  // MCP servers for this workspace. VS Code, MCP Health and other clients read this file.
  // Each entry is either a local process ("stdio") or a remote endpoint ("http" / "sse").
  "servers": {
    // "everything": {
    //   "type": "stdio",
    //   "command": "npx",
    //   "args": ["-y", "@modelcontextprotocol/server-everything"]
    // },
    // "remote": {
    //   "type": "http",
    //   "url": "https://example.invalid/mcp",
    //   "headers": { "Authorization": "Bearer \${input:api-token}" }
    // }
  },
  "inputs": [
    // { "id": "api-token", "type": "promptString", "description": "API token", "password": true }
  ]
}
`;

export async function createWorkspaceConfig(): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Open a folder first: .vscode/mcp.json belongs to a workspace folder.'));
    return;
  }
  const folder =
    folders.length === 1
      ? folders[0]
      : await vscode.window.showWorkspaceFolderPick({ placeHolder: vscode.l10n.t('Create .vscode/mcp.json in which folder?') });
  if (!folder) {
    return;
  }
  const target = vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
  if (!(await exists(target))) {
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder.uri, '.vscode'));
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(MCP_JSON_TEMPLATE));
  }
  await vscode.window.showTextDocument(target);
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
