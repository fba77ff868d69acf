// Reads `mcpHealth.*` once per change into a frozen object and tells listeners what the change requires.

import * as vscode from 'vscode';
import { compareSettings, parseSettings, type ExtensionSettings, type SettingsChange } from '../present/settingsModel';

export const SECTION = 'mcpHealth';

export function readSettings(): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return parseSettings((key) => config.get(key));
}

export interface SettingsChangeEvent {
  readonly previous: ExtensionSettings;
  readonly current: ExtensionSettings;
  readonly change: SettingsChange;
}

export class SettingsStore implements vscode.Disposable {
  private value: ExtensionSettings = readSettings();
  private readonly emitter = new vscode.EventEmitter<SettingsChangeEvent>();
  private readonly subscription: vscode.Disposable;
  readonly onDidChange = this.emitter.event;

  constructor() {
    this.subscription = vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(SECTION)) {
        return;
      }
      const previous = this.value;
      this.value = readSettings();
      this.emitter.fire({ previous, current: this.value, change: compareSettings(previous, this.value) });
    });
  }

  get current(): ExtensionSettings {
    return this.value;
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
