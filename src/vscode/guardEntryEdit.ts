// The body of "Guard This Server" and "Unguard", loaded from dist/lazy on the first use of either command (only their
// registration is built at activation): rewrite the entry, show the diff, ask, then apply it as one undoable edit.

import * as vscode from 'vscode';
import { changedSpan, guardEntry, GuardRewriteError, unguardEntry } from '../core/config/guardRewrite';
import type { GuardLauncher } from '../core/guardLauncher';
import type { ServerStatus } from '../core/model';
import type { StableLauncher } from '../mcp/stableRuntime';
import type { MonitorRegistry } from '../core/monitorTypes';

export interface GuardCommandHost {
  readonly registry: MonitorRegistry;
  rediscover(): Promise<void>;
  /** `node <global storage>/bin/mcp-health-guard.js guard`, or why the stable copy could not be made. */
  guardLauncher(): Promise<StableLauncher>;
  /** Whether `node` is on the PATH this editor sees: the rewritten entry names it bare. */
  nodeOnPath(): Promise<boolean>;
}

/** The read-only documents on the right of the diff: the proposed text of each pending rewrite. */
export interface ProposedTexts {
  /** A document holding `text`, named after `file`; `tag` tells one proposal from another. */
  show(file: string, tag: string, text: string): vscode.Uri;
  drop(uri: vscode.Uri): void;
}

export async function rewriteGuardedEntry(
  host: GuardCommandHost,
  proposals: ProposedTexts,
  status: ServerStatus,
  action: 'Guard' | 'Unguard',
): Promise<void> {
  const { name, source } = status.config;
  const guard = action === 'Guard';
  // The button the user confirms with, and the name "Run … again" refers to.
  const label = guard ? vscode.l10n.t('Guard') : vscode.l10n.t('Unguard');
  const uri = vscode.Uri.file(source.file);
  const document = await vscode.workspace.openTextDocument(uri);
  const before = document.getText();
  let launcher: GuardLauncher | undefined;
  if (guard) {
    const stable = await host.guardLauncher();
    if ('error' in stable) {
      // Without the stable copy the entry would name a file that is not there: refuse rather than break the server.
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'MCP Health: cannot guard "{0}": the guard runtime could not be copied to the extension\'s storage ({1}). Nothing was changed.',
          name,
          stable.error,
        ),
      );
      return;
    }
    launcher = stable.launcher;
  }
  let after: string;
  try {
    const request = { text: before, file: source.file, format: source.format, name };
    after = launcher ? guardEntry(request, launcher) : unguardEntry(request);
  } catch (error) {
    if (!(error instanceof GuardRewriteError)) throw error;
    void vscode.window.showErrorMessage(
      guard
        ? vscode.l10n.t('MCP Health: cannot guard "{0}": {1}', name, error.message)
        : vscode.l10n.t('MCP Health: cannot unguard "{0}": {1}', name, error.message),
    );
    return;
  }
  const proposed = proposals.show(source.file, `${action}:${name}:${Date.now()}`, after);
  try {
    const diffTitle = guard
      ? vscode.l10n.t('{0}: run through mcp-health guard (proposed)', name)
      : vscode.l10n.t('{0}: remove the guard (proposed)', name);
    await vscode.commands.executeCommand('vscode.diff', uri, proposed, diffTitle, { preview: true });
    let detail = launcher
      ? vscode.l10n.t(
          'The entry will run "{0} guard --name {1} -- <its command>": a copy of the guard kept in MCP Health\'s storage, so it needs no global install and keeps working after the extension updates. The client keeps one connection while the guard restarts the server. "Unguard" puts the entry back exactly.',
          [launcher.command, ...launcher.args.slice(0, -1)].join(' '),
          name,
        )
      : vscode.l10n.t("The entry's own command and args are put back exactly as they were.");
    if (launcher && !(await host.nodeOnPath())) {
      detail = `${vscode.l10n.t('Warning: "node" is not on the PATH this editor sees, so a client started from here may not be able to start the guarded entry. Install Node.js or put it on the PATH first.')}\n\n${detail}`;
    }
    const relative = vscode.workspace.asRelativePath(uri);
    const question = guard ? vscode.l10n.t('Guard "{0}" in {1}?', name, relative) : vscode.l10n.t('Unguard "{0}" in {1}?', name, relative);
    const choice = await vscode.window.showWarningMessage(question, { modal: true, detail }, label);
    if (choice !== label) return;
    const outcome = await applyRewrite(document, before, after);
    const file = vscode.workspace.asRelativePath(uri);
    if (outcome === 'changed') {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('MCP Health: {0} changed while the diff was open; nothing was written. Run "{1}" again.', file, label),
      );
    } else if (outcome === 'refused') {
      void vscode.window.showErrorMessage(vscode.l10n.t('MCP Health: the editor refused the edit to {0}.', file));
    } else if (outcome === 'unsaved') {
      void vscode.window.showInformationMessage(
        guard
          ? vscode.l10n.t('MCP Health: guarded "{0}"; {1} had unsaved changes, save it to apply.', name, file)
          : vscode.l10n.t('MCP Health: unguarded "{0}"; {1} had unsaved changes, save it to apply.', name, file),
      );
    } else {
      await host.rediscover();
    }
  } finally {
    await closeProposal(proposed);
    proposals.drop(proposed);
  }
}

/**
 * Writes the confirmed text as one edit of the changed span, so Undo takes it back. Unsaved changes of the user's own
 * stay theirs to save; a clean file is saved so the client sees the new entry.
 */
export async function applyRewrite(
  document: vscode.TextDocument,
  before: string,
  after: string,
): Promise<'saved' | 'unsaved' | 'changed' | 'refused'> {
  if (document.getText() !== before) return 'changed';
  const wasDirty = document.isDirty;
  const span = changedSpan(before, after);
  const edit = new vscode.WorkspaceEdit();
  edit.replace(document.uri, new vscode.Range(document.positionAt(span.start), document.positionAt(span.end)), span.text);
  if (!(await vscode.workspace.applyEdit(edit))) return 'refused';
  if (wasDirty) return 'unsaved';
  return (await document.save()) ? 'saved' : 'refused';
}

async function closeProposal(proposed: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposed.toString());
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}
