// The shared vocabulary of MCP Health. Pure data: no I/O, no SDK, no editor.

import type { FailureCause } from './causeTypes';
import type { Inventory, ToolDrift } from './inventory/types';

export type TransportKind = 'stdio' | 'http' | 'sse';

/** Which client's file format a server came from; decides key names and variable syntax. */
export type ConfigFormat =
  | 'vscode' // .vscode/mcp.json, user mcp.json, devcontainer customizations
  | 'vscode-settings' // settings.json "mcp": { servers, inputs }
  | 'mcp-json' // <folder>/.mcp.json (Claude Code project, portable)
  | 'claude-code' // ~/.claude.json (top level and per project)
  | 'cursor'
  | 'claude-desktop'
  | 'windsurf'
  | 'cline'
  | 'roo'
  | 'gemini'
  | 'codex'
  | 'continue'
  | 'zed'
  | 'kiro' // .kiro/settings/mcp.json, ~/.kiro/settings/mcp.json
  | 'opencode' // opencode.json(c) "mcp", ~/.config/opencode/opencode.json(c)
  | 'copilot-cli' // ~/.copilot/mcp-config.json ($COPILOT_HOME)
  | 'antigravity'; // Antigravity CLI: .agents/mcp_config.json, ~/.gemini/antigravity-cli/mcp_config.json

export type ConfigScope = 'workspace' | 'user';

export interface SourceRef {
  /** Absolute path of the file the server was declared in. */
  readonly file: string;
  /** 1-based line and column of the server's key (or list entry) in that file. */
  readonly line: number;
  readonly column: number;
  readonly format: ConfigFormat;
  readonly scope: ConfigScope;
  /** The workspace folder the file belongs to (absolute path), for workspace-scoped files. */
  readonly folder?: string;
  /** Where the entry's `env` and `args` keys are (1-based), so a cause about them can open the file there. */
  readonly keys?: { readonly env?: KeyPosition; readonly args?: KeyPosition };
}

export interface KeyPosition {
  readonly line: number;
  readonly column: number;
}

export interface ServerConfig {
  /** Stable across reloads: `${source.file}#${name}` (a `#2` suffix disambiguates duplicates in one file). */
  readonly id: string;
  readonly name: string;
  readonly source: SourceRef;
  readonly transport: TransportKind;
  // stdio
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * The cwd is the window's first folder because the file sets none (a user-level VS Code server): the same definition
   * gets another cwd in every window, so what the user agreed to run must not depend on it. Also set when an
   * untrusted window moved a user-level server without `cwd` to the home folder.
   */
  readonly cwdFromWindow?: true;
  /** A user-level entry that names a path in an open workspace folder itself (`${workspaceFolder}` in cwd, command...). */
  readonly reachesWorkspace?: true;
  /**
   * Set when a supplied `${input:id}` value went into the fields below: the same fields with `${input:id}` as written.
   * Consent is given to this form, so typing the input after allowing the server does not ask again.
   */
  readonly asWritten?: {
    readonly command?: string;
    readonly args?: readonly string[];
    readonly env?: Readonly<Record<string, string>>;
    readonly cwd?: string;
    readonly url?: string;
    readonly envFile?: string;
  };
  readonly envFile?: string;
  /**
   * VS Code's `"sandboxEnabled": true` with its `"sandbox"` policy: the server may only be started through
   * @vscode/sandbox-runtime under this policy (src/core/sandbox.ts), never without it.
   */
  readonly sandbox?: SandboxPolicy;
  // http / sse
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Declared disabled in its own file (Cline/Roo `disabled`, Codex `enabled = false`). */
  readonly disabled?: boolean;
  /** `${input:id}` references that still have no value: the server cannot start until they do. */
  readonly missingInputs?: readonly string[];
  /** Values that came from secrets (`${input:}` with password, env/header values judged secret) for redaction. */
  readonly secretValues?: readonly string[];
}

/** The `sandbox` block of a VS Code stdio server as written (variables resolved); empty lists where it says nothing. */
export interface SandboxPolicy {
  readonly filesystem: {
    readonly allowWrite: readonly string[];
    readonly denyRead: readonly string[];
    readonly denyWrite: readonly string[];
  };
  readonly network: {
    readonly allowedDomains: readonly string[];
    readonly deniedDomains: readonly string[];
  };
}

export type Severity = 'error' | 'warning';

export interface ConfigDiagnostic {
  readonly file: string;
  /** 1-based, like an editor shows them. */
  readonly line: number;
  readonly column: number;
  readonly endLine?: number;
  readonly endColumn?: number;
  readonly severity: Severity;
  readonly message: string;
  /** Set when the diagnostic concerns one server; such a server is shown in state `config-error`. */
  readonly serverName?: string;
}

export type ServerState =
  | 'idle' // known, not yet contacted
  | 'starting' // a stdio server's first start, within its start-up budget (npx downloads, cold caches)
  | 'connecting'
  | 'verifying' // reconnected after a failure; not trusted until its first probe answers
  | 'up'
  | 'down'
  | 'gave-up' // crashed too often in a short window: no longer restarted until the user restarts it
  | 'suspect' // answered, but not as the protocol says
  | 'auth-required'
  | 'needs-input'
  | 'config-error'
  | 'disabled' // monitoring turned off, or the server is disabled in its own file
  | 'untrusted' // workspace not trusted: listed, never started
  | 'needs-consent' // the user has not allowed this definition yet: listed, never started
  | 'sandbox-unavailable'; // sandboxEnabled, but the sandbox cannot be set up here: never started without it

export type ErrorKind = 'timeout' | 'unreachable' | 'exited' | 'protocol-violation' | 'auth' | 'config' | 'input-required' | 'sandbox'; // the sandbox the definition asks for cannot be set up: nothing was started

export type Era = 'handshake' | 'modern';

/** How a process ended, as the stdio transport and the guard capture it: every fact there, null when there is none. */
export type ProcessEnd = Required<Pick<ServerError, 'message' | 'exitCode' | 'signal' | 'stderrTail'>>;

/**
 * What is known about a failure besides its kind and message. One shape for every failure: a connect error carries
 * these facts, an ended connection reports a ServerError, and the status shows the last one.
 */
export interface FailureFacts {
  /** stdio: the child's exit code or signal, and the tail of what it wrote to stderr. */
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly stderrTail?: string;
  /** HTTP status, when the failure carried one. */
  readonly httpStatus?: number;
  /** The system or TLS error code underneath (ENOENT, ECONNREFUSED, ENOTFOUND, DEPTH_ZERO_SELF_SIGNED_CERT, ...). */
  readonly code?: string;
  /** The `WWW-Authenticate` challenge of a 401, e.g. `Bearer resource_metadata="..."`. */
  readonly authenticate?: string;
  /** stdio: the PATH the server was started with, when its command was not found. */
  readonly searchPath?: string;
  /** HTTP: the proxy variables in force (credentials masked), when any is set. */
  readonly proxy?: string;
}

export interface ServerError extends FailureFacts {
  readonly kind: ErrorKind;
  readonly message: string;
  /** When it happened: while connecting, on a keepalive probe, or to a running session. */
  readonly phase?: 'connect' | 'probe' | 'session';
}

export interface ServerInfo {
  readonly name: string;
  readonly version?: string;
  readonly title?: string;
}

export type ProbeMethod = 'ping' | 'server/discover' | 'tools/list' | 'initialize';

export type ProbeOutcome =
  | 'ok'
  | 'timeout'
  | 'error-reply' // JSON-RPC error to the era's probe: a violation
  | 'non-empty' // a result the method never returns (a non-empty pong, a discover answer without supportedVersions): a violation
  | 'closed' // the connection died while the probe was out
  | 'auth' // 401/403 while probing
  | 'failed'; // any other transport failure

export interface ProbeResult {
  readonly method: ProbeMethod;
  readonly outcome: ProbeOutcome;
  /** Round trip from a monotonic clock; present when an answer (of any kind) came back. */
  readonly rttMs?: number;
  readonly detail?: string;
  /** The JSON-RPC id used, for the ping log. */
  readonly requestId?: string | number;
}

/** A snapshot of everything known about one server; what every view renders. */
export interface ServerStatus {
  readonly config: ServerConfig;
  readonly state: ServerState;
  readonly era: Era | null;
  readonly protocolVersion: string | null;
  readonly serverInfo: ServerInfo | null;
  readonly lastRttMs: number | null;
  readonly lastError: ServerError | null;
  readonly lastProbeAt: number | null; // wall clock, ms since epoch
  readonly lastStateChangeAt: number | null; // wall clock
  readonly consecutiveFailures: number;
  readonly restarts: number;
  readonly flapping: boolean;
  /** True once a fresh connection repeated the same violation: probed with a fallback request, not restarted. */
  readonly nonConformant: boolean;
  readonly stats: ProbeStats;
  readonly stderrTail: string;
  /** stdio child pid while connected. */
  readonly pid: number | null;
  /** Set when another process (another editor window) runs this server and this status mirrors its report. */
  readonly watchedElsewhere?: string;
  /** Set when the entry runs through `mcp-health guard`: never started here, these are the running guard's figures. */
  readonly guarded?: GuardedFigures;
  /** How long the current connection took to open (spawn + handshake); shown until the first probe answers. */
  readonly handshakeMs?: number | null;
  /** Wall-clock time of the next automatic reconnect of a `down` server; at or before now while that attempt runs. */
  readonly nextRetryAt?: number | null;
  /** While `starting`: when the start began (wall clock; null while it waits for a start slot) and its budget. */
  readonly startup?: { readonly since: number | null; readonly budgetMs: number } | null;
  /** While `gave-up`: the crash-loop rule that stopped the restarts. */
  readonly gaveUp?: { readonly crashes: number; readonly windowMs: number } | null;
  /** Tools, prompts and resources from the latest listing (once per connection); null before the first. */
  readonly inventory?: Inventory | null;
  /** How the tools differ from the accepted baseline; null when they match or nothing could be compared. */
  readonly drift?: ToolDrift | null;
  /** Answers keep taking longer than the server's slow threshold (off unless configured). */
  readonly slow?: boolean;
  /** Why it is not up, as a cause the user can act on, with one next step; null while up. */
  readonly cause?: FailureCause | null;
  /**
   * Set by the editor's views, never by the monitor: VS Code's own `chat.mcp.*` settings keep VS Code from starting
   * this server (src/present/vscodeStart.ts). MCP Health's own verdict (state, cause) is not changed by it.
   */
  readonly vscodeWontStart?: { readonly setting: string; readonly summary: string; readonly nextStep: string } | null;
  /** HTTPS: the server certificate seen on the current connection (once per connection); null when none was read. */
  readonly certificate?: CertificateFacts | null;
}

/** What MCP Health read of an HTTPS server's certificate; dates are wall-clock ms since the epoch. */
export interface CertificateFacts {
  /** The certificate's notAfter (`valid_to`). */
  readonly validTo: number;
  readonly subject?: string;
  readonly issuer?: string;
}

export interface ProbeStats {
  /** Probes in `recent`, the window of the last PROBE_HISTORY_SIZE that p50 and p95 are computed over. */
  readonly samples: number;
  /** Of those, answered `ok`. */
  readonly samplesOk: number;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  /** Share of observed time spent `up` and proven by an answered probe, 0..100; null before anything was observed. */
  readonly uptimePercent: number | null;
  readonly recent: readonly ProbeRecord[];
  readonly restartTimes: readonly number[];
  /** Every probe since this server's monitoring began, not only the window. */
  readonly totals: ProbeTotals;
}

export interface ProbeTotals {
  readonly sent: number;
  readonly ok: number;
  /** Every probe not answered `ok`: timed out, failed, refused, or answered against the protocol. */
  readonly failed: number;
}

export interface ProbeRecord {
  readonly at: number; // wall clock
  readonly method: ProbeMethod;
  readonly outcome: ProbeOutcome;
  readonly rttMs?: number;
}

/** The guard's figures on a guarded server's status; `running` false when no guard of that name answered. */
export interface GuardedFigures {
  readonly guardName: string;
  readonly running: boolean;
  /** How many guards of that name run (one per client that started the entry). */
  readonly guards: number;
  readonly guardPid: number | null;
  readonly upstreamPid: number | null;
  readonly restarts: number;
  readonly probeRttMs: number | null;
  /** Real requests from the client (not the guard's own probes) and how many of them failed. */
  readonly requests: number;
  readonly errors: number;
}
