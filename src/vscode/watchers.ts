// A file watcher on every file discovery reads, existing or not, inside or outside the workspace.
// Any change, creation or deletion asks for one re-discovery after the burst settles.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CandidateFile } from '../core/config/types';
import { coalesce } from './coalesce';

const DEBOUNCE_MS = 300;

export class ConfigWatchers implements vscode.Disposable {
  private readonly watchers = new Map<string, vscode.Disposable>();
  private readonly changed = coalesce(() => this.emitter.fire(), DEBOUNCE_MS);
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;

  /** Watches exactly these candidates: new ones are added, ones no longer read are dropped. */
  update(candidates: readonly CandidateFile[]): void {
    const wanted = new Map<string, vscode.RelativePattern>();
    for (const candidate of candidates) {
      const pattern = patternFor(candidate);
      wanted.set(`${pattern.baseUri.fsPath}\0${pattern.pattern}`, pattern);
    }
    for (const [key, watcher] of this.watchers) {
      if (!wanted.has(key)) {
        watcher.dispose();
        this.watchers.delete(key);
      }
    }
    for (const [key, pattern] of wanted) {
      if (!this.watchers.has(key)) {
        this.watchers.set(key, this.watch(pattern));
      }
    }
  }

  /** For the end-to-end suite and the log. */
  get patterns(): string[] {
    return [...this.watchers.keys()].map((key) => key.replace('\0', path.sep));
  }

  private watch(pattern: vscode.RelativePattern): vscode.Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher(pattern);
    const fire = () => this.changed.schedule();
    return vscode.Disposable.from(watcher, watcher.onDidCreate(fire), watcher.onDidChange(fire), watcher.onDidDelete(fire));
  }

  dispose(): void {
    for (const watcher of this.watchers.values()) {
      watcher.dispose();
    }
    this.watchers.clear();
    this.changed.dispose();
    this.emitter.dispose();
  }
}

function patternFor(candidate: CandidateFile): vscode.RelativePattern {
  const folder = candidate.folder ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(candidate.folder)) : undefined;
  if (folder) {
    // Inside a workspace folder the recursive workspace watcher sees the file even when its directory is created later.
    const relative = path.relative(folder.uri.fsPath, candidate.file).split(path.sep).join('/');
    return new vscode.RelativePattern(folder, candidate.dir ? `${relative}/*.{yaml,yml,json}` : relative);
  }
  if (candidate.dir) {
    return new vscode.RelativePattern(vscode.Uri.file(candidate.file), '*.{yaml,yml,json}');
  }
  return new vscode.RelativePattern(vscode.Uri.file(path.dirname(candidate.file)), path.basename(candidate.file));
}
