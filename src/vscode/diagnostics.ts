// Config problems in the Problems panel, at the exact place discovery found them.

import * as vscode from 'vscode';
import type { ConfigDiagnostic } from '../core/model';

export class ConfigDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('mcpHealth');

  update(diagnostics: readonly ConfigDiagnostic[]): void {
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const diagnostic of diagnostics) {
      const list = byFile.get(diagnostic.file) ?? [];
      list.push(toVscode(diagnostic));
      byFile.set(diagnostic.file, list);
    }
    this.collection.clear();
    this.collection.set([...byFile.entries()].map(([file, list]) => [vscode.Uri.file(file), list]));
  }

  /** For the end-to-end suite. */
  entries(): Array<[vscode.Uri, readonly vscode.Diagnostic[]]> {
    const result: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> = [];
    this.collection.forEach((uri, list) => {
      result.push([uri, list]);
    });
    return result;
  }

  dispose(): void {
    this.collection.dispose();
  }
}

export function toVscode(diagnostic: ConfigDiagnostic): vscode.Diagnostic {
  const startLine = Math.max(0, diagnostic.line - 1);
  const startColumn = Math.max(0, diagnostic.column - 1);
  // Without an end the editor widens an empty range to the word under it, which is the right token here.
  const endLine = diagnostic.endLine !== undefined ? Math.max(startLine, diagnostic.endLine - 1) : startLine;
  const endColumn = diagnostic.endColumn !== undefined ? Math.max(0, diagnostic.endColumn - 1) : startColumn;
  const range = new vscode.Range(startLine, startColumn, endLine, endLine === startLine ? Math.max(startColumn, endColumn) : endColumn);
  const result = new vscode.Diagnostic(
    range,
    diagnostic.message,
    diagnostic.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  result.source = 'MCP Health';
  return result;
}
