// Discovery: every candidate file read through the injected file system, each parsed on its own, so one broken
// file never hides another. Nothing here writes, and nothing here throws.

import type { ConfigDiagnostic, ServerConfig } from '../model';
import { isSecretName } from '../redact';
import { withConfiguredSecrets } from './configuredSecrets';
import { candidateFiles } from './candidates';
import { detectFormat } from './detectFormat';
import { MAX_ENV_FILE_BYTES, parseEnvFile, type ParsedEnvFile } from './envFile';
import { FILE_START } from './lineIndex';
import { parseConfigText } from './parse';
import { pathApi } from './platformPaths';
import type {
  CandidateFile,
  ConfigFileSystem,
  DiscoveryOptions,
  DiscoveryResult,
  InputDefinition,
  ParseContext,
  SourceFileInfo,
} from './types';

export { candidateFiles } from './candidates';
export { detectFormat } from './detectFormat';
export { parseConfigText } from './parse';
export type * from './types';

/** No real config comes near this; a bigger text is refused rather than parsed. */
export const MAX_CONFIG_CHARS = 20 * 1024 * 1024;

const CONTINUE_FILE = /\.(ya?ml|json)$/i;

interface FileOutcome {
  servers: ServerConfig[];
  diagnostics: ConfigDiagnostic[];
  inputs: InputDefinition[];
  sources: SourceFileInfo[];
}

export async function discover(options: DiscoveryOptions, fs: ConfigFileSystem): Promise<DiscoveryResult> {
  const result: DiscoveryResult = { servers: [], diagnostics: [], inputs: [], sources: [] };
  let candidates: CandidateFile[];
  try {
    candidates = candidateFiles(options);
  } catch (error) {
    result.diagnostics.push(fileDiagnostic('', `cannot list configuration files: ${messageOf(error)}`));
    return result;
  }
  const envFiles = new Map<string, Promise<ParsedEnvFile | undefined | Error>>();
  const outcomes = await Promise.all(
    candidates.map((candidate) =>
      (candidate.dir ? readDirectory(candidate, options, fs, envFiles) : readOne(candidate, options, fs, envFiles)).catch(
        (error: unknown): FileOutcome => ({
          servers: [],
          inputs: [],
          sources: [],
          diagnostics: [fileDiagnostic(candidate.file, `unexpected failure: ${messageOf(error)}`)],
        }),
      ),
    ),
  );
  for (const outcome of outcomes) {
    result.servers.push(...outcome.servers);
    result.diagnostics.push(...outcome.diagnostics);
    result.inputs.push(...outcome.inputs);
    result.sources.push(...outcome.sources);
  }
  return result;
}

async function readDirectory(
  candidate: CandidateFile,
  options: DiscoveryOptions,
  fs: ConfigFileSystem,
  envFiles: Map<string, Promise<ParsedEnvFile | undefined | Error>>,
): Promise<FileOutcome> {
  let names: string[] | undefined;
  try {
    names = await fs.readDir(candidate.file);
  } catch (error) {
    return emptyOutcome(candidate, true, fileDiagnostic(candidate.file, `cannot read folder: ${messageOf(error)}`));
  }
  if (names === undefined) return emptyOutcome(candidate, false);
  const path = pathApi(options.platform);
  const files = names.filter((name) => CONTINUE_FILE.test(name)).sort();
  const outcomes = await Promise.all(
    files.map((name) =>
      readOne(
        {
          file: path.join(candidate.file, name),
          format: candidate.format,
          scope: candidate.scope,
          ...(candidate.folder ? { folder: candidate.folder } : {}),
        },
        options,
        fs,
        envFiles,
      ),
    ),
  );
  return {
    servers: outcomes.flatMap((outcome) => outcome.servers),
    diagnostics: outcomes.flatMap((outcome) => outcome.diagnostics),
    inputs: outcomes.flatMap((outcome) => outcome.inputs),
    sources: outcomes.flatMap((outcome) => outcome.sources),
  };
}

async function readOne(
  candidate: CandidateFile,
  options: DiscoveryOptions,
  fs: ConfigFileSystem,
  envFiles: Map<string, Promise<ParsedEnvFile | undefined | Error>>,
): Promise<FileOutcome> {
  let text: string | undefined;
  try {
    text = await fs.readFile(candidate.file);
  } catch (error) {
    return emptyOutcome(candidate, true, fileDiagnostic(candidate.file, `cannot read: ${messageOf(error)}`));
  }
  if (text === undefined) return emptyOutcome(candidate, false);
  if (text.length > MAX_CONFIG_CHARS) {
    return emptyOutcome(
      candidate,
      true,
      fileDiagnostic(candidate.file, `file is larger than ${MAX_CONFIG_CHARS / 1024 / 1024} MB; not read`),
    );
  }
  const format = options.configFiles?.length ? detectFormat(candidate.file, text) : candidate.format;
  const context: ParseContext = {
    scope: candidate.scope,
    ...(candidate.folder !== undefined ? { folder: candidate.folder } : {}),
    workspaceFolders: options.workspaceFolders,
    userHome: options.userHome,
    platform: options.platform,
    env: options.env,
    ...(options.inputs ? { inputs: options.inputs } : {}),
    ...(options.workspaceTrusted === false ? { workspaceTrusted: false } : {}),
  };
  const parsed = parseConfigText(text, candidate.file, format, context);
  const diagnostics = [...parsed.diagnostics];
  const servers: ServerConfig[] = [];
  for (const server of parsed.servers) {
    const withEnvFile = server.envFile ? await applyEnvFile(server, fs, envFiles, diagnostics) : server;
    if (withEnvFile) servers.push(await withConfiguredSecrets(withEnvFile, fs.exists?.bind(fs)));
  }
  const source: SourceFileInfo = {
    file: candidate.file,
    format,
    scope: candidate.scope,
    ...(candidate.folder !== undefined ? { folder: candidate.folder } : {}),
    exists: true,
    serverCount: servers.length,
  };
  return { servers, diagnostics, inputs: parsed.inputs, sources: [source] };
}

/** The file's values go under `env`: a key set in both keeps the `env` value, as in VS Code. */
async function applyEnvFile(
  server: ServerConfig,
  fs: ConfigFileSystem,
  envFiles: Map<string, Promise<ParsedEnvFile | undefined | Error>>,
  diagnostics: ConfigDiagnostic[],
): Promise<ServerConfig | undefined> {
  const envFile = server.envFile as string;
  const at = { file: server.source.file, line: server.source.line, column: server.source.column, serverName: server.name };
  if (server.missingInputs?.some((id) => envFile.includes(`\${input:${id}}`))) return server;
  let pending = envFiles.get(envFile);
  if (pending === undefined) {
    pending = fs.readFile(envFile, MAX_ENV_FILE_BYTES).then(
      (text) => (text === undefined ? undefined : parseEnvFile(text)),
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    envFiles.set(envFile, pending);
    const parsed = await pending;
    for (const line of parsed instanceof Error || parsed === undefined ? [] : parsed.invalidLines) {
      diagnostics.push({ file: envFile, line, column: 1, severity: 'warning', message: 'envFile line is not KEY=VALUE; ignored' });
    }
  }
  const parsed = await pending;
  if (parsed === undefined || parsed instanceof Error) {
    const reason = parsed === undefined ? 'does not exist' : `cannot be read: ${parsed.message}`;
    diagnostics.push({ ...at, severity: 'error', message: `envFile of server "${server.name}" ${reason}: ${envFile}` });
    return undefined;
  }
  const env = { ...parsed.values, ...server.env };
  const secrets = new Set(server.secretValues ?? []);
  for (const [key, value] of Object.entries(parsed.values)) {
    if (isSecretName(key) && value.length > 0) secrets.add(value);
  }
  return {
    ...server,
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(secrets.size > 0 ? { secretValues: [...secrets] } : {}),
  };
}

function emptyOutcome(candidate: CandidateFile, exists: boolean, diagnostic?: ConfigDiagnostic): FileOutcome {
  return {
    servers: [],
    diagnostics: diagnostic ? [diagnostic] : [],
    inputs: [],
    sources: [
      {
        file: candidate.file,
        format: candidate.format,
        scope: candidate.scope,
        ...(candidate.folder !== undefined ? { folder: candidate.folder } : {}),
        exists,
        serverCount: 0,
      },
    ],
  };
}

function fileDiagnostic(file: string, message: string): ConfigDiagnostic {
  return { file, ...FILE_START, severity: 'error', message };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
