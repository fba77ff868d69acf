// Which servers may be contacted at all. A gated server is listed with its reason and never connected.

import type { ConfigDiagnostic, ServerConfig, ServerError, ServerState, SourceRef } from '../model';
import type { MonitorMode } from '../monitorTypes';

export type GateState = Extract<ServerState, 'config-error' | 'disabled' | 'untrusted' | 'needs-consent' | 'needs-input' | 'idle'>;

export interface Gate {
  readonly state: GateState;
  readonly reason: string;
  readonly error: ServerError | null;
  /** Not gated for a fault: another process connects it, and views show that process's status. */
  readonly elsewhere?: boolean;
  /** Not gated for a fault: the entry runs through `mcp-health guard` under this name; views show the guard's report. */
  readonly guarded?: string;
}

export interface GateInputs {
  readonly configError: ServerError | null;
  readonly userDisabled: boolean;
  readonly workspaceTrusted: boolean;
  /** The user allowed this exact definition (always true where nobody needs asking, e.g. the CLI). */
  readonly consented: boolean;
  readonly mode: MonitorMode;
  /** Who runs this server instead of us (another window leads the user-level servers), if anyone. */
  readonly runElsewhere?: string;
  /** The guard's name when the entry's command is `mcp-health guard ...` (see core/guarded.ts). */
  readonly guardedAs?: string | null;
}

/**
 * Null means the server may be connected. Order matters: a broken config beats everything, then the user's choice,
 * then Restricted Mode (untrusted beats consent: trust first, then the user is asked), then consent, and only then
 * inputs, so nobody is asked for a secret of a server they have not agreed to run.
 */
export function gateFor(config: ServerConfig, inputs: GateInputs): Gate | null {
  if (inputs.configError) {
    return { state: 'config-error', reason: inputs.configError.message, error: inputs.configError };
  }
  if (inputs.userDisabled) {
    return { state: 'disabled', reason: 'monitoring turned off', error: null };
  }
  if (config.disabled) {
    return { state: 'disabled', reason: `disabled in ${config.source.file}`, error: null };
  }
  if (config.source.scope === 'workspace' && !inputs.workspaceTrusted) {
    return { state: 'untrusted', reason: 'workspace not trusted: servers from workspace files are not started', error: null };
  }
  // A user-level entry is the user's own, but one that points into the untrusted folder would run the folder's code.
  if (config.reachesWorkspace && !inputs.workspaceTrusted) {
    return {
      state: 'untrusted',
      reason: 'workspace not trusted: this user-level server names a path in the workspace folder',
      error: null,
    };
  }
  if (inputs.mode === 'off') {
    return { state: 'disabled', reason: 'mode off: listed only, never contacted', error: null };
  }
  // Before consent: nothing is started for a guarded entry (starting it would be a second copy of the server, beside
  // the one the user's client runs); only the guard's same-user socket is read.
  if (inputs.guardedAs) {
    return {
      state: 'idle',
      reason: `guarded: run by mcp-health guard in its client (${inputs.guardedAs})`,
      error: null,
      guarded: inputs.guardedAs,
    };
  }
  if (!inputs.consented) {
    return { state: 'needs-consent', reason: 'waiting for consent: nothing is started or contacted until the user allows it', error: null };
  }
  if (config.missingInputs && config.missingInputs.length > 0) {
    const message = `waiting for input: ${config.missingInputs.join(', ')}`;
    return { state: 'needs-input', reason: message, error: { kind: 'input-required', message } };
  }
  // Last: a server this window would not run anyway keeps showing its own reason rather than someone else's status.
  if (inputs.runElsewhere !== undefined) {
    return { state: 'idle', reason: `watched by ${inputs.runElsewhere}`, error: null, elsewhere: true };
  }
  return null;
}

function place(diagnostic: ConfigDiagnostic): string {
  return `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}`;
}

export function configError(diagnostic: ConfigDiagnostic): ServerError {
  return { kind: 'config', message: `${diagnostic.message} (${place(diagnostic)})` };
}

function names(diagnostic: ConfigDiagnostic, server: ServerConfig): boolean {
  return diagnostic.serverName === server.name && diagnostic.file === server.source.file;
}

/** An error-severity diagnostic naming a loaded server puts it in `config-error`; warnings do not stop it. */
export function configErrorOf(server: ServerConfig, diagnostics: readonly ConfigDiagnostic[]): ServerError | null {
  const found = diagnostics.find((diagnostic) => diagnostic.severity === 'error' && names(diagnostic, server));
  return found ? configError(found) : null;
}

export interface BrokenServer {
  readonly config: ServerConfig;
  readonly error: ServerError;
}

/**
 * Servers that a diagnostic names but discovery could not load: listed in `config-error` with a config made from the
 * diagnostic. Format and scope are borrowed from a loaded server of the same file when there is one.
 */
export function brokenServers(servers: readonly ServerConfig[], diagnostics: readonly ConfigDiagnostic[]): BrokenServer[] {
  const broken = new Map<string, { diagnostic: ConfigDiagnostic }>();
  for (const diagnostic of diagnostics) {
    if (diagnostic.serverName === undefined || servers.some((server) => names(diagnostic, server))) {
      continue;
    }
    const id = `${diagnostic.file}#${diagnostic.serverName}`;
    const known = broken.get(id);
    if (!known || (known.diagnostic.severity !== 'error' && diagnostic.severity === 'error')) {
      broken.set(id, { diagnostic });
    }
  }
  return [...broken.entries()].map(([id, { diagnostic }]) => {
    const sibling = servers.find((server) => server.source.file === diagnostic.file)?.source;
    const source: SourceRef = {
      file: diagnostic.file,
      line: diagnostic.line,
      column: diagnostic.column,
      format: sibling?.format ?? 'vscode',
      scope: sibling?.scope ?? 'user',
      ...(sibling?.folder !== undefined ? { folder: sibling.folder } : {}),
    };
    const config: ServerConfig = { id, name: diagnostic.serverName ?? id, source, transport: 'stdio' };
    return { config, error: configError(diagnostic) };
  });
}
