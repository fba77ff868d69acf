// `${input:id}` values: asked for only when the user clicks "Supply Input…", kept in SecretStorage, never in settings.

import * as vscode from 'vscode';
import type { InputDefinition } from '../core/config/types';
import type { ServerConfig } from '../core/model';

const SECRET_KEY = 'mcpHealth.inputValues';

export class InputStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async values(): Promise<Record<string, string>> {
    const raw = await this.secrets.get(SECRET_KEY);
    if (!raw) {
      return {};
    }
    try {
      const parsed: unknown = JSON.parse(raw);
      return typeof parsed === 'object' && parsed !== null
        ? Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
        : {};
    } catch {
      return {};
    }
  }

  async store(id: string, value: string): Promise<void> {
    const values = await this.values();
    values[id] = value;
    await this.secrets.store(SECRET_KEY, JSON.stringify(values));
  }

  async clear(): Promise<void> {
    await this.secrets.delete(SECRET_KEY);
  }
}

/**
 * Prompts for each input the server still lacks; returns how many were stored.
 * Inputs declared in the server's own file win over same-named inputs elsewhere.
 */
export async function promptForInputs(server: ServerConfig, definitions: readonly InputDefinition[], store: InputStore): Promise<number> {
  let stored = 0;
  for (const id of server.missingInputs ?? []) {
    const definition = definitions.find((d) => d.id === id && d.file === server.source.file) ?? definitions.find((d) => d.id === id);
    const value = await ask(id, definition, server.name);
    if (value === undefined) {
      return stored;
    }
    await store.store(id, value);
    stored++;
  }
  return stored;
}

async function ask(id: string, definition: InputDefinition | undefined, serverName: string): Promise<string | undefined> {
  const title = vscode.l10n.t('MCP Health: input "{0}" for {1}', id, serverName);
  if (definition?.type === 'pickString' && definition.options?.length) {
    return vscode.window.showQuickPick(definition.options, { title, placeHolder: definition.description, ignoreFocusOut: true });
  }
  if (definition?.type === 'command') {
    // A command input runs another extension's code; that is VS Code's own MCP support's job, not a monitor's.
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Input "{0}" is provided by a command; MCP Health cannot run it. Enter a value to monitor {1}.', id, serverName),
    );
  }
  return vscode.window.showInputBox({
    title,
    prompt: definition?.description ?? vscode.l10n.t('Value for {0}', `\${input:${id}}`),
    value: definition?.password ? undefined : definition?.default,
    password: definition?.password ?? false,
    ignoreFocusOut: true,
  });
}
