// Collects the diagnostics of one file; every message names a place, never a secret value.

import type { ConfigDiagnostic, Severity } from '../model';
import type { Position } from './lineIndex';

export class DiagnosticSink {
  readonly diagnostics: ConfigDiagnostic[] = [];

  constructor(readonly file: string) {}

  error(pos: Position, message: string, serverName?: string, end?: Position): void {
    this.add('error', pos, message, serverName, end);
  }

  warning(pos: Position, message: string, serverName?: string, end?: Position): void {
    this.add('warning', pos, message, serverName, end);
  }

  private add(severity: Severity, pos: Position, message: string, serverName?: string, end?: Position): void {
    this.diagnostics.push({
      file: this.file,
      line: Math.max(1, pos.line),
      column: Math.max(1, pos.column),
      ...(end ? { endLine: Math.max(1, end.line), endColumn: Math.max(1, end.column) } : {}),
      severity,
      message,
      ...(serverName !== undefined ? { serverName } : {}),
    });
  }
}

/** `PropertyNameExpected` -> `property name expected`. */
export function sentenceFromCode(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
