// One server declaration, in any format, checked and turned into a ServerConfig. A fatal problem drops the server
// and leaves an error diagnostic carrying its name, so the registry can still show it as config-error.

import type { ConfigFormat, ConfigScope, ServerConfig, TransportKind } from '../model';
import { isSecretName, urlCredential } from '../redact';
import { DiagnosticSink } from './diagnosticSink';
import type { VariableSources } from './types';
import { DIALECTS, type Dialect } from './dialects';
import type { Position } from './lineIndex';
import { lookupEnv, pathApi } from './platformPaths';
import { describeKind, getEntry, getValue, type ConfigNode } from './tree';
import { resolveVariables, VARIABLE_SYNTAX, type VariableContext } from './variables';
import { readSandbox } from './sandboxBlock';

export interface EntryContext extends VariableSources {
  readonly file: string;
  readonly format: ConfigFormat;
  readonly scope: ConfigScope;
  /** The workspace folder this declaration belongs to (a project entry of ~/.claude.json has one too). */
  readonly folder?: string;
  readonly sink: DiagnosticSink;
  readonly workspaceTrusted?: boolean;
  /** VS Code formats: the file's top-level `"sandbox"`, the policy of a sandboxed server that has no block of its own. */
  readonly fileSandbox?: ConfigNode;
}

export type ServerWithoutId = Omit<ServerConfig, 'id'>;

export function normalizeServer(name: string, keyPos: Position, node: ConfigNode, context: EntryContext): ServerWithoutId | undefined {
  if (node.kind !== 'object') {
    context.sink.error(node.pos, `server "${name}" must be an object, found ${describeKind(node)}`, name);
    return undefined;
  }
  return new EntryReader(name, keyPos, node, context).read();
}

class EntryReader {
  private fatal = false;
  private readonly dialect: Dialect;
  private readonly variables: VariableContext;
  private readonly missingInputs = new Set<string>();
  private readonly secrets = new Set<string>();
  private inputUsed = false;
  private readonly path;

  constructor(
    private readonly name: string,
    private readonly keyPos: Position,
    private readonly node: ConfigNode,
    private readonly context: EntryContext,
  ) {
    this.dialect = DIALECTS[context.format];
    this.path = pathApi(context.platform);
    this.variables = {
      syntax: VARIABLE_SYNTAX[context.format],
      folder: context.folder,
      workspaceFolders: context.workspaceFolders,
      userHome: context.userHome,
      platform: context.platform,
      env: context.env,
      inputs: context.inputs,
    };
  }

  read(): ServerWithoutId | undefined {
    let commandNode = getValue(this.node, 'command');
    let argsEntry = getEntry(this.node, 'args');
    let envEntry = getEntry(this.node, this.dialect.envKey);
    // Zed's older shape nests the process: "command": { "path", "args", "env" }.
    if (this.context.format === 'zed' && commandNode?.kind === 'object') {
      const nested = commandNode;
      argsEntry = getEntry(nested, 'args') ?? argsEntry;
      envEntry = getEntry(nested, 'env') ?? envEntry;
      commandNode = getValue(nested, 'path');
      if (commandNode === undefined) {
        this.fail(nested.pos, `"command" of server "${this.name}" has no "path"`);
        return undefined;
      }
    }
    let argsNode = argsEntry?.value;
    // opencode: "command": ["npx", "-y", "server"] is the program and its arguments in one array.
    if (this.context.format === 'opencode' && commandNode?.kind === 'array') {
      const [program, ...rest] = commandNode.items;
      if (program === undefined) {
        this.fail(commandNode.pos, `"command" of server "${this.name}" is an empty array`);
        return undefined;
      }
      argsEntry = getEntry(this.node, 'command');
      argsNode = { kind: 'array', pos: commandNode.pos, items: rest };
      commandNode = program;
    }
    const envNode = envEntry?.value;
    const keys = {
      ...(envEntry ? { env: envEntry.keyPos } : {}),
      ...(argsEntry ? { args: argsEntry.keyPos } : {}),
    };
    const urlChoice = this.dialect.urlKeys
      .map((choice) => ({ ...choice, node: getValue(this.node, choice.key) }))
      .find((choice) => choice.node !== undefined && choice.node.kind !== 'null');

    const transport = this.transport(commandNode !== undefined && commandNode.kind !== 'null', urlChoice);
    if (transport === undefined) return undefined;

    const common = {
      name: this.name,
      source: {
        file: this.context.file,
        line: this.keyPos.line,
        column: this.keyPos.column,
        format: this.context.format,
        scope: this.context.scope,
        ...(this.context.folder !== undefined ? { folder: this.context.folder } : {}),
        ...(transport === 'stdio' && (keys.env || keys.args) ? { keys } : {}),
      },
      transport,
      ...this.disabled(),
    };
    const specific =
      transport === 'stdio'
        ? this.stdio(commandNode, argsNode, envNode)
        : this.remote(urlChoice?.node, urlChoice?.key ?? this.dialect.urlKeys[0].key);
    if (this.fatal || specific === undefined) return undefined;
    return {
      ...common,
      ...specific,
      ...(this.inputUsed ? { asWritten: this.asWritten() } : {}),
      ...(this.missingInputs.size > 0 ? { missingInputs: [...this.missingInputs] } : {}),
      ...(this.secrets.size > 0 ? { secretValues: [...this.secrets] } : {}),
    };
  }

  /** The entry read again with no input values, so every `${input:id}` stays as written (its diagnostics dropped). */
  private asWritten(): NonNullable<ServerConfig['asWritten']> {
    const again = new EntryReader(this.name, this.keyPos, this.node, {
      ...this.context,
      inputs: undefined,
      sink: new DiagnosticSink(this.context.file),
    }).read();
    const fields = again as Partial<ServerConfig> | undefined;
    return {
      ...(fields?.command !== undefined ? { command: fields.command } : {}),
      ...(fields?.args !== undefined ? { args: fields.args } : {}),
      ...(fields?.env !== undefined ? { env: fields.env } : {}),
      ...(fields?.cwd !== undefined && !fields.cwdFromWindow ? { cwd: fields.cwd } : {}),
      ...(fields?.url !== undefined ? { url: fields.url } : {}),
      ...(fields?.envFile !== undefined ? { envFile: fields.envFile } : {}),
    };
  }

  private transport(hasCommand: boolean, urlChoice: { key: string; transport?: TransportKind } | undefined): TransportKind | undefined {
    const typeEntry = this.dialect.typeKeys.map((key) => getEntry(this.node, key)).find((entry) => entry !== undefined);
    if (typeEntry && typeEntry.value.kind !== 'null') {
      const value = typeEntry.value;
      if (value.kind !== 'string') {
        this.fail(value.pos, `"${typeEntry.key}" of server "${this.name}" must be a string, found ${describeKind(value)}`);
        return undefined;
      }
      const known = Object.prototype.hasOwnProperty.call(this.dialect.typeValues, value.value)
        ? this.dialect.typeValues[value.value]
        : undefined;
      if (known === undefined) {
        const expected = Object.keys(this.dialect.typeValues)
          .map((type) => `"${type}"`)
          .join(', ');
        this.fail(value.pos, `server "${this.name}" has unknown type "${value.value}"; expected ${expected}`);
        return undefined;
      }
      return known;
    }
    if (hasCommand) return 'stdio';
    if (urlChoice) return urlChoice.transport ?? this.dialect.defaultRemote;
    const urlKeys = this.dialect.urlKeys.map((choice) => `"${choice.key}"`).join(' or ');
    this.fail(this.keyPos, `server "${this.name}" has neither "command" nor ${urlKeys}`);
    return undefined;
  }

  private stdio(commandNode: ConfigNode | undefined, argsNode: ConfigNode | undefined, envNode: ConfigNode | undefined) {
    const command = this.requiredString(commandNode, 'command', `stdio server "${this.name}" has no "command"`);
    if (command !== undefined && command.trim().length === 0)
      this.fail(commandNode?.pos ?? this.keyPos, `"command" of server "${this.name}" is empty`);
    const args = this.stringArray(argsNode, 'args');
    const env = this.env(envNode);
    const named = getValue(this.node, 'cwd') !== undefined;
    let cwd = this.cwd();
    let cwdFromWindow = cwd !== undefined && this.context.folder === undefined && !named && this.dialect.defaultCwd === 'folder';
    const envFile = this.dialect.hasEnvFile ? this.optionalPath(getValue(this.node, 'envFile'), 'envFile') : undefined;
    // Only VS Code defines the sandbox keys; other clients run such an entry unsandboxed, and so its meaning there.
    const sandbox = this.dialect.hasSandbox
      ? readSandbox(this.node, this.context.fileSandbox, {
          name: this.name,
          fail: (pos, message) => this.fail(pos, message),
          resolve: (text, pos) => this.resolve(text, pos),
        })
      : undefined;
    if (command === undefined) return undefined;
    const userLevel = this.context.scope === 'user' && this.context.folder === undefined;
    // Restricted Mode: a user-level server the entry gives no cwd would run in (or inherit) the window's untrusted
    // folder, where `npx` prefers the folder's own node_modules and a relative command or PATH entry is the folder's.
    // It runs in the home folder instead; the consent hash ignores the move (cwdFromWindow).
    if (userLevel && !named && this.context.workspaceTrusted === false && this.dialect.defaultCwd !== 'home') {
      cwd = this.context.userHome;
      cwdFromWindow = true;
    }
    const own = [
      command,
      ...(args ?? []),
      ...Object.values(env ?? {}),
      ...(envFile !== undefined ? [envFile] : []),
      ...(cwd !== undefined && !cwdFromWindow ? [cwd] : []),
    ];
    const reachesWorkspace =
      userLevel &&
      own.some((value) => this.context.workspaceFolders.some((folder) => mentionsFolder(value, folder, this.context.platform)));
    return {
      command,
      ...(args !== undefined ? { args } : {}),
      ...(env !== undefined && Object.keys(env).length > 0 ? { env } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(cwdFromWindow ? { cwdFromWindow: true as const } : {}),
      ...(reachesWorkspace ? { reachesWorkspace: true as const } : {}),
      ...(envFile !== undefined ? { envFile } : {}),
      ...(sandbox !== undefined ? { sandbox } : {}),
    };
  }

  private remote(urlNode: ConfigNode | undefined, urlKey: string) {
    const url = this.requiredString(urlNode, urlKey, `remote server "${this.name}" has no "${urlKey}"`);
    if (url !== undefined && !this.touchesMissingInput(url)) this.checkUrl(url, urlNode?.pos ?? this.keyPos);
    const headers = this.headers();
    if (url === undefined) return undefined;
    this.collectUrlSecrets(url);
    return { url, ...(headers !== undefined && Object.keys(headers).length > 0 ? { headers } : {}) };
  }

  private env(node: ConfigNode | undefined): Record<string, string> | undefined {
    const env: Record<string, string> = {};
    if (node !== undefined && node.kind !== 'null') {
      if (node.kind !== 'object') {
        this.fail(node.pos, `"${this.dialect.envKey}" of server "${this.name}" must be an object, found ${describeKind(node)}`);
        return undefined;
      }
      for (const entry of node.entries) {
        const value = entry.value;
        if (value.kind === 'null') continue;
        if (value.kind !== 'string' && value.kind !== 'number') {
          this.fail(
            value.pos,
            `env "${entry.key}" of server "${this.name}" must be a string, number or null, found ${describeKind(value)}`,
          );
          continue;
        }
        env[entry.key] = value.kind === 'number' ? String(value.value) : this.resolve(value.value, value.pos);
      }
    }
    if (this.context.format === 'codex') this.passThroughEnv(env);
    for (const [key, value] of Object.entries(env)) if (isSecretName(key)) this.addSecret(value);
    return env;
  }

  /** Codex `env_vars`: names copied from the launching environment. */
  private passThroughEnv(env: Record<string, string>): void {
    const names = this.stringArray(getValue(this.node, 'env_vars'), 'env_vars');
    for (const name of names ?? []) {
      const value = lookupEnv(this.context.env, name, this.context.platform);
      if (value === undefined) {
        this.warn(getValue(this.node, 'env_vars')?.pos ?? this.keyPos, `env_vars of server "${this.name}" names ${name}, which is not set`);
      } else {
        env[name] = value;
      }
    }
  }

  private headers(): Record<string, string> | undefined {
    const headers: Record<string, string> = {};
    const node = getValue(this.node, this.dialect.headersKey);
    if (node !== undefined && node.kind !== 'null') {
      if (node.kind !== 'object') {
        this.fail(node.pos, `"${this.dialect.headersKey}" of server "${this.name}" must be an object, found ${describeKind(node)}`);
        return undefined;
      }
      for (const entry of node.entries) {
        if (entry.value.kind !== 'string') {
          this.fail(entry.value.pos, `header "${entry.key}" of server "${this.name}" must be a string, found ${describeKind(entry.value)}`);
          continue;
        }
        headers[entry.key] = this.resolve(entry.value.value, entry.value.pos);
      }
    }
    if (this.context.format === 'codex') this.codexHeaders(headers);
    for (const [key, value] of Object.entries(headers)) {
      if (!isSecretName(key)) continue;
      this.addSecret(value);
      const credential = /^[A-Za-z][A-Za-z0-9_-]*\s+(\S.*)$/.exec(value);
      if (credential) this.addSecret(credential[1]);
    }
    return headers;
  }

  /** Codex names environment variables whose values become headers, so the secret never sits in the file. */
  private codexHeaders(headers: Record<string, string>): void {
    const bearer = getValue(this.node, 'bearer_token_env_var');
    if (bearer !== undefined) {
      if (bearer.kind !== 'string') {
        this.fail(bearer.pos, `"bearer_token_env_var" of server "${this.name}" must be a string, found ${describeKind(bearer)}`);
      } else {
        const token = lookupEnv(this.context.env, bearer.value, this.context.platform);
        if (token === undefined)
          this.warn(bearer.pos, `bearer_token_env_var of server "${this.name}" names ${bearer.value}, which is not set`);
        else headers.Authorization = `Bearer ${token}`;
      }
    }
    const fromEnv = getValue(this.node, 'env_http_headers');
    if (fromEnv === undefined) return;
    if (fromEnv.kind !== 'object') {
      this.fail(fromEnv.pos, `"env_http_headers" of server "${this.name}" must be a table, found ${describeKind(fromEnv)}`);
      return;
    }
    for (const entry of fromEnv.entries) {
      if (entry.value.kind !== 'string') {
        this.fail(entry.value.pos, `env_http_headers "${entry.key}" of server "${this.name}" must name an environment variable`);
        continue;
      }
      const value = lookupEnv(this.context.env, entry.value.value, this.context.platform);
      if (value === undefined)
        this.warn(entry.value.pos, `env_http_headers "${entry.key}" of server "${this.name}" names ${entry.value.value}, which is not set`);
      else {
        headers[entry.key] = value;
        this.addSecret(value);
      }
    }
  }

  private cwd(): string | undefined {
    const explicit = this.optionalPath(getValue(this.node, 'cwd'), 'cwd');
    if (explicit !== undefined) return explicit;
    switch (this.dialect.defaultCwd) {
      case 'home':
        return this.context.userHome;
      case 'folder':
        // A user-level VS Code server runs in the (first) open folder, as VS Code does.
        return (
          this.context.folder ??
          (this.context.format === 'vscode' || this.context.format === 'vscode-settings' ? this.context.workspaceFolders[0] : undefined)
        );
      case 'none':
        return undefined;
    }
  }

  /** A relative path is taken from the workspace folder, or from the file's own folder when there is none. */
  private optionalPath(node: ConfigNode | undefined, key: string): string | undefined {
    if (node === undefined || node.kind === 'null') return undefined;
    if (node.kind !== 'string') {
      this.fail(node.pos, `"${key}" of server "${this.name}" must be a string, found ${describeKind(node)}`);
      return undefined;
    }
    const value = this.resolve(node.value, node.pos);
    if (value.length === 0 || this.path.isAbsolute(value) || this.touchesMissingInput(value)) return value || undefined;
    return this.path.resolve(this.context.folder ?? this.path.dirname(this.context.file), value);
  }

  private requiredString(node: ConfigNode | undefined, key: string, missingMessage: string): string | undefined {
    if (node === undefined || node.kind === 'null') {
      this.fail(this.keyPos, missingMessage);
      return undefined;
    }
    if (node.kind !== 'string') {
      this.fail(node.pos, `"${key}" of server "${this.name}" must be a string, found ${describeKind(node)}`);
      return undefined;
    }
    return this.resolve(node.value, node.pos);
  }

  private stringArray(node: ConfigNode | undefined, key: string): string[] | undefined {
    if (node === undefined || node.kind === 'null') return undefined;
    if (node.kind !== 'array') {
      this.fail(node.pos, `"${key}" of server "${this.name}" must be an array of strings, found ${describeKind(node)}`);
      return undefined;
    }
    const result: string[] = [];
    node.items.forEach((item, index) => {
      if (item.kind !== 'string') {
        this.fail(item.pos, `"${key}" of server "${this.name}" must hold only strings; item ${index + 1} is ${describeKind(item)}`);
      } else {
        result.push(this.resolve(item.value, item.pos));
      }
    });
    return result;
  }

  private disabled(): { disabled?: boolean } {
    // opencode v2 replaced v1's `enabled` with `disabled`.
    const key = this.context.format === 'opencode' && getValue(this.node, 'disabled') !== undefined ? 'disabled' : this.dialect.disabledKey;
    if (key === undefined) return {};
    const node = getValue(this.node, key);
    if (node === undefined || node.kind === 'null') return {};
    if (node.kind !== 'boolean') {
      this.warn(node.pos, `"${key}" of server "${this.name}" should be true or false, found ${describeKind(node)}; ignored`);
      return {};
    }
    const disabled = key === 'enabled' ? !node.value : node.value;
    return disabled ? { disabled: true } : {};
  }

  private checkUrl(url: string, pos: Position): void {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      this.fail(pos, `URL of server "${this.name}" is not a valid URL`);
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      this.fail(pos, `URL of server "${this.name}" must be http or https, found ${parsed.protocol.replace(/:$/, '')}`);
    }
  }

  private collectUrlSecrets(url: string): void {
    const credential = urlCredential(url);
    if (credential !== undefined) this.addSecret(credential);
    const query = url.split('#')[0].split('?')[1];
    for (const pair of query?.split('&') ?? []) {
      const [key, value] = pair.split('=', 2);
      if (value !== undefined && isSecretName(key)) this.addSecret(value);
    }
  }

  private resolve(text: string, pos: Position): string {
    const resolution = resolveVariables(text, this.variables);
    for (const id of resolution.missingInputs) this.missingInputs.add(id);
    for (const value of resolution.inputValues) this.addSecret(value);
    if (resolution.inputValues.length > 0) this.inputUsed = true;
    for (const problem of resolution.problems) this.warn(pos, `server "${this.name}": ${problem}`);
    return resolution.value;
  }

  private touchesMissingInput(value: string): boolean {
    return [...this.missingInputs].some((id) => value.includes(`\${input:${id}}`));
  }

  private addSecret(value: string): void {
    // An unfilled `${input:id}` is a placeholder, not a secret; its value arrives with a later discovery.
    if (value.length > 0 && !this.touchesMissingInput(value)) this.secrets.add(value);
  }

  private fail(pos: Position, message: string): void {
    this.fatal = true;
    this.context.sink.error(pos, message, this.name);
  }

  private warn(pos: Position, message: string): void {
    this.context.sink.warning(pos, message, this.name);
  }
}

/** Whether a configured value names the folder or a path below it (`${workspaceFolder}/bin/x`, `--root=<folder>`). */
function mentionsFolder(value: string, folder: string, platform: NodeJS.Platform): boolean {
  const fold = (text: string) => (platform === 'win32' ? text.replace(/\//g, '\\').toLowerCase() : text);
  const haystack = fold(value);
  const needle = fold(folder).replace(/[\\/]+$/, '');
  if (needle.length === 0) return false;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const next = haystack[at + needle.length];
    if (next === undefined || next === '/' || next === '\\' || next === '"' || next === "'" || next === ';' || next === ':' || next === ',')
      return true;
  }
  return false;
}
