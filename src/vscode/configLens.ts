// Status where a server is configured: a CodeLens above each entry of every discovered config file and a hover on its
// name. A thin adapter over present/configLensIndex: it maps lens models to the editor's types and nothing more.

import * as os from 'node:os';
import * as vscode from 'vscode';
import { locateServers } from '../core/config/serverLocations';
import type { MonitorRegistry } from '../core/monitorTypes';
import { lensCommandArgument, nameSpan, serverHoverMarkdown, type ServerLensModel } from '../present/configLens';
import { ConfigLensIndex, type LensDocument } from '../present/configLensIndex';
import { Commands } from '../present/commandIds';
import { workspaceFolderRefs } from '../present/paths';
import { coalesce } from './coalesce';

/** A burst of events (a "ping all" answers one per server) becomes one re-render of the visible lenses. */
const LENS_COALESCE_MS = 250;

/** Every format discovery reads: JSON/JSONC, TOML (Codex), YAML (Continue). Other files are never asked about. */
const SELECTOR: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.{json,jsonc,toml,yaml,yml}' }];

const HOVER_COMMANDS = [Commands.pingNow, Commands.reconnect, Commands.showLog, Commands.allow, Commands.supplyInput];

function lensDocument(document: vscode.TextDocument): LensDocument {
  return { file: document.uri.fsPath, version: document.version, isDirty: document.isDirty, getText: () => document.getText() };
}

function codeLenses(model: ServerLensModel, line: number): vscode.CodeLens[] {
  const range = new vscode.Range(line - 1, 0, line - 1, 0);
  const argument = lensCommandArgument(model.id);
  // A lens without a command id reads as plain text: the state is information, the actions are links.
  const lenses = [new vscode.CodeLens(range, { title: model.summary, tooltip: model.tooltip, command: '' })];
  for (const action of model.actions) {
    lenses.push(
      new vscode.CodeLens(range, { title: action.title, tooltip: action.tooltip, command: action.command, arguments: [argument] }),
    );
  }
  return lenses;
}

export class ConfigLensProvider implements vscode.CodeLensProvider, vscode.HoverProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changeEmitter.event;
  private readonly changed = coalesce(() => this.changeEmitter.fire(), LENS_COALESCE_MS, { leading: true });
  private readonly index: ConfigLensIndex;
  private readonly registrations: vscode.Disposable[];
  /** The editor objects of each server's lenses, kept while its model (replaced on every change) and line stay. */
  private readonly built = new WeakMap<ServerLensModel, { line: number; lenses: vscode.CodeLens[] }>();
  /** Each open document's last answer, with what it was computed from. */
  private readonly rendered = new Map<string, { generation: number; version: number; isDirty: boolean; lenses: vscode.CodeLens[] }>();

  constructor(
    registry: Pick<MonitorRegistry, 'list' | 'get' | 'onEvent'>,
    private enabled: boolean,
  ) {
    this.index = new ConfigLensIndex({
      registry,
      now: () => Date.now(),
      locate: locateServers,
      parseContext: () => ({
        workspaceFolders: workspaceFolderRefs(vscode.workspace.workspaceFolders).map((folder) => folder.path),
        userHome: os.homedir(),
        platform: process.platform,
        env: process.env,
      }),
      onDidChange: () => this.changed.schedule(),
      platform: process.platform,
    });
    this.registrations = [
      vscode.languages.registerCodeLensProvider(SELECTOR, this),
      vscode.languages.registerHoverProvider(SELECTOR, this),
      vscode.workspace.onDidCloseTextDocument((document) => {
        this.index.forget(document.uri.fsPath);
        this.rendered.delete(document.uri.fsPath);
      }),
    ];
  }

  /** `mcpHealth.codeLens.enabled`: off removes every lens and hover at once, on brings them back. */
  setEnabled(enabled: boolean): void {
    if (this.enabled === enabled) return;
    this.enabled = enabled;
    this.changeEmitter.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!this.enabled || document.uri.scheme !== 'file' || !this.index.hasServers(document.uri.fsPath)) return [];
    // The editor asks again on scrolling, focus and every keystroke: with nothing changed, the last answer stands.
    const last = this.rendered.get(document.uri.fsPath);
    if (last && last.generation === this.index.generation && last.version === document.version && last.isDirty === document.isDirty)
      return last.lenses;
    const lenses: vscode.CodeLens[] = [];
    for (const { model, line } of this.index.lensesFor(lensDocument(document))) {
      let built = this.built.get(model);
      if (built?.line !== line) {
        built = { line, lenses: codeLenses(model, line) };
        this.built.set(model, built);
      }
      lenses.push(...built.lenses);
    }
    this.rendered.set(document.uri.fsPath, {
      generation: this.index.generation,
      version: document.version,
      isDirty: document.isDirty,
      lenses,
    });
    return lenses;
  }

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    if (!this.enabled || document.uri.scheme !== 'file' || !this.index.hasServers(document.uri.fsPath)) return undefined;
    const lens = this.index.lensAt(lensDocument(document), position.line + 1);
    const status = lens ? this.index.status(lens.model.id) : undefined;
    if (!lens || !status) return undefined;
    const span = nameSpan(document.lineAt(position.line).text, lens.model.name, lens.column);
    if (position.character < span.start || position.character > span.end) return undefined;
    const markdown = new vscode.MarkdownString(serverHoverMarkdown(status, Date.now()), true);
    markdown.isTrusted = { enabledCommands: HOVER_COMMANDS };
    return new vscode.Hover(markdown, new vscode.Range(position.line, span.start, position.line, span.end));
  }

  dispose(): void {
    for (const registration of this.registrations) registration.dispose();
    this.changed.dispose();
    this.index.dispose();
    this.rendered.clear();
    this.changeEmitter.dispose();
  }
}
