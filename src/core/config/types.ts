// The public shapes of discovery. File access is injected so src/core stays free of I/O.

import type { ConfigDiagnostic, ConfigFormat, ConfigScope, ServerConfig } from '../model';

export interface ConfigFileSystem {
  /**
   * undefined = the file does not exist. Any other failure (a folder, FIFO or device, over `maxBytes` or the file
   * system's own cap) is thrown and becomes a diagnostic.
   */
  readFile(path: string, maxBytes?: number): Promise<string | undefined>;
  /** Entry names; undefined = no such directory. */
  readDir(path: string): Promise<string[] | undefined>;
  /** Whether an absolute path exists (file or folder): a configured value that is an existing path is no secret. */
  exists?(path: string): Promise<boolean>;
}

export interface DiscoveryOptions {
  /** Absolute paths; every folder of a multi-root workspace. */
  readonly workspaceFolders: readonly string[];
  readonly userHome: string;
  /** Default per platform: linux ~/.config/Code/User, darwin ~/Library/Application Support/Code/User, win32 %APPDATA%\Code\User. */
  readonly vscodeUserDir?: string;
  /** VS Code globalStorage (Cline / Roo global settings); default <vscodeUserDir>/globalStorage. */
  readonly globalStorageDir?: string;
  readonly platform: NodeJS.Platform;
  /** For ${env:X}, ${VAR}, APPDATA, XDG_CONFIG_HOME, CODEX_HOME. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly includeUser: boolean;
  /** A format set to false is not read; every format is on by default. */
  readonly sources?: Partial<Record<ConfigFormat, boolean>>;
  /** Explicit files (CLI --config): when given, only these are read, each format told by name and content. */
  readonly configFiles?: readonly string[];
  /** Values for ${input:id}. */
  readonly inputs?: Readonly<Record<string, string>>;
  /** False in a Restricted Mode window: user-level servers are kept out of its folders (default true: the CLI). */
  readonly workspaceTrusted?: boolean;
}

export interface InputDefinition {
  readonly id: string;
  readonly type: 'promptString' | 'pickString' | 'command';
  readonly description?: string;
  readonly password?: boolean;
  readonly options?: string[];
  readonly default?: string;
  readonly file: string;
}

export interface SourceFileInfo {
  readonly file: string;
  readonly format: ConfigFormat;
  readonly scope: ConfigScope;
  readonly folder?: string;
  readonly exists: boolean;
  readonly serverCount: number;
}

export interface DiscoveryResult {
  readonly servers: ServerConfig[];
  readonly diagnostics: ConfigDiagnostic[];
  readonly inputs: InputDefinition[];
  readonly sources: SourceFileInfo[];
}

export interface CandidateFile {
  readonly file: string;
  readonly format: ConfigFormat;
  readonly scope: ConfigScope;
  readonly folder?: string;
  /** A folder whose *.yaml|*.yml|*.json files are each a config (Continue). */
  readonly dir?: boolean;
}

/** Where variables get their values: the same for every file of one discovery. */
export interface VariableSources {
  readonly workspaceFolders: readonly string[];
  readonly userHome: string;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly inputs?: Readonly<Record<string, string>>;
}

/** What parsing one file needs to know besides its text. */
export interface ParseContext extends VariableSources {
  readonly scope: ConfigScope;
  /** The workspace folder the file belongs to. */
  readonly folder?: string;
  /** See DiscoveryOptions.workspaceTrusted. */
  readonly workspaceTrusted?: boolean;
}

export interface ParseOutput {
  readonly servers: ServerConfig[];
  readonly diagnostics: ConfigDiagnostic[];
  readonly inputs: InputDefinition[];
}
