// Entry point. activate() only wires objects (no file or network I/O) and returns; discovery starts right after.

import * as vscode from 'vscode';
import type { McpHealthApi, McpHealthPublicApi } from './vscode/api';
import { McpHealth } from './vscode/mcpHealth';

let current: McpHealth | undefined;

export function activate(context: vscode.ExtensionContext): McpHealthApi | McpHealthPublicApi {
  const extension = new McpHealth(context);
  current = extension;
  context.subscriptions.push({ dispose: () => void extension.dispose() });
  setImmediate(() => {
    extension.start().catch((error: unknown) => console.error('MCP Health failed to start', error));
  });
  // The internals (resolved secrets, storeInput) only for the test suite; every other extension gets the redacted view.
  return context.extensionMode === vscode.ExtensionMode.Test ? extension.api() : extension.publicApi();
}

export async function deactivate(): Promise<void> {
  const extension = current;
  current = undefined;
  await extension?.dispose();
}
