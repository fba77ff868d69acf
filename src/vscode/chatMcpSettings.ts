// VS Code's own `chat.mcp.*` settings, read live: which servers VS Code itself will not start. The rule is pure
// (src/present/vscodeStart.ts); this adapter reads the settings on every change and hands each server's block to the views.

import * as vscode from 'vscode';
import type { ServerConfig } from '../core/model';
import { parseChatMcpSettings, vscodeWontStart, type ChatMcpSettings, type VsCodeStartBlock } from '../present/vscodeStart';

const SECTION = 'chat.mcp';

function readChatMcpSettings(): ChatMcpSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return parseChatMcpSettings((key) => config.get(key));
}

export class ChatMcpSettingsWatcher implements vscode.Disposable {
  private value = readChatMcpSettings();
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly subscription: vscode.Disposable;
  /** The settings changed: what VS Code will start may be different now. */
  readonly onDidChange = this.emitter.event;

  constructor() {
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(SECTION)) return;
      const next = readChatMcpSettings();
      if (JSON.stringify(next) === JSON.stringify(this.value)) return;
      this.value = next;
      this.emitter.fire();
    });
  }

  get current(): ChatMcpSettings {
    return this.value;
  }

  /** Why VS Code will not start the server, for the views (src/present/serverView.ts); null when it will. */
  blockFor(config: ServerConfig): VsCodeStartBlock | null {
    return vscodeWontStart(config, this.value);
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
