// Entry point. activate() only wires objects (no file or network I/O) and returns; discovery starts right after.

import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';
import type { McpHealthApi, McpHealthPublicApi } from './vscode/api';
import { McpHealth } from './vscode/mcpHealth';

let current: McpHealth | undefined;

export function activate(context: vscode.ExtensionContext): McpHealthApi | McpHealthPublicApi {
  // src/present is shared with the CLI, so it translates through @vscode/l10n, fed here with the editor's own bundle.
  if (vscode.l10n.bundle) {
    l10n.config({ contents: vscode.l10n.bundle });
  }
  let extension: McpHealth;
  try {
    extension = new McpHealth(context);
  } catch (error) {
    // Without this the failure would only reach the developer console, and the user would see an empty view.
    reportFailure(error, undefined);
    throw error;
  }
  current = extension;
  context.subscriptions.push({ dispose: () => void extension.dispose() });
  setImmediate(() => {
    extension.start().catch((error: unknown) => reportFailure(error, extension));
  });
  // The internals (resolved secrets, storeInput) only for the test suite; every other extension gets the redacted view.
  return context.extensionMode === vscode.ExtensionMode.Test ? extension.api() : extension.publicApi();
}

function reportFailure(error: unknown, extension: McpHealth | undefined): void {
  const message = error instanceof Error ? error.message : String(error);
  console.error('MCP Health failed to start', error);
  extension?.logError(`failed to start: ${error instanceof Error ? (error.stack ?? message) : message}`);
  const showLog = vscode.l10n.t('Show Log');
  void Promise.resolve(
    vscode.window.showErrorMessage(vscode.l10n.t('MCP Health failed to start: {0}', message), ...(extension ? [showLog] : [])),
  ).then((choice) => {
    if (choice === showLog) {
      extension?.showLog();
    }
  });
}

export async function deactivate(): Promise<void> {
  const extension = current;
  current = undefined;
  await extension?.dispose();
}
