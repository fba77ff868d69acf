// One config file's text to servers, inputs and diagnostics. Pure and synchronous: the unit of tests and fuzzing.

import type { ConfigFormat, ServerConfig } from '../model';
import { DiagnosticSink } from './diagnosticSink';
import { parseInputs } from './inputs';
import { parseJsonc } from './jsonTree';
import type { Position } from './lineIndex';
import { pathApi } from './platformPaths';
import { normalizeServer, type EntryContext, type ServerWithoutId } from './serverEntry';
import { parseToml } from './tomlTree';
import { describeKind, getEntry, getPath, getValue, type ConfigNode } from './tree';
import type { InputDefinition, ParseContext, ParseOutput } from './types';
import { parseYaml } from './yamlTree';

/** A server map or list found in the file, with the folder its servers belong to. */
interface ServerGroup {
  readonly node: ConfigNode;
  /** How the file calls this place, for messages: `"servers"`, `projects["/x"].mcpServers`. */
  readonly label: string;
  readonly folder?: string;
}

export function parseConfigText(text: string, file: string, format: ConfigFormat, context: ParseContext): ParseOutput {
  const sink = new DiagnosticSink(file);
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const root = parseTree(body, file, format, sink);
  if (root === undefined || root.kind === 'null') return { servers: [], diagnostics: sink.diagnostics, inputs: [] };

  const { groups, inputsNode, sandboxNode } = locateServers(root, format, context, sink);
  const inputs = parseInputs(inputsNode, file, sink);
  const declared: ServerWithoutId[] = [];
  for (const group of groups) {
    const entryContext: EntryContext = {
      ...context,
      file,
      format,
      folder: group.folder ?? context.folder,
      sink,
      ...(sandboxNode ? { fileSandbox: sandboxNode } : {}),
    };
    for (const { name, keyPos, node } of entriesOf(group, format, sink)) {
      const server = normalizeServer(name, keyPos, node, entryContext);
      if (server) declared.push(server);
    }
  }
  warnUndefinedInputs(declared, inputs, sink);
  return { servers: assignIds(declared, file), diagnostics: sink.diagnostics, inputs };
}

function parseTree(text: string, file: string, format: ConfigFormat, sink: DiagnosticSink): ConfigNode | undefined {
  if (format === 'codex') return parseToml(text, sink);
  if (format === 'continue' && !/\.json$/i.test(file)) return parseYaml(text, sink);
  return parseJsonc(text, sink);
}

function locateServers(root: ConfigNode, format: ConfigFormat, context: ParseContext, sink: DiagnosticSink) {
  const groups: ServerGroup[] = [];
  let inputsNode: ConfigNode | undefined;
  let sandboxNode: ConfigNode | undefined;
  if (format === 'continue') {
    // A block file is a list of servers, `mcpServers:` (list or map), or one server object.
    const nested = getValue(root, 'mcpServers');
    if (root.kind === 'array') groups.push({ node: root, label: 'the file' });
    else if (nested !== undefined) groups.push({ node: nested, label: '"mcpServers"' });
    else if (root.kind === 'object' && getValue(root, 'name') !== undefined)
      groups.push({ node: { kind: 'array', pos: root.pos, items: [root] }, label: 'the file' });
    return { groups, inputsNode };
  }
  if (root.kind !== 'object') {
    sink.error(root.pos, `expected an object at the top of the file, found ${describeKind(root)}`);
    return { groups, inputsNode };
  }
  const add = (node: ConfigNode | undefined, label: string, folder?: string): void => {
    if (node !== undefined) groups.push({ node, label, ...(folder !== undefined ? { folder } : {}) });
  };
  switch (format) {
    case 'vscode': {
      // The same format sits at the top of mcp.json and under customizations in devcontainer.json.
      const devcontainer = getPath(root, ['customizations', 'vscode', 'mcp']);
      const holder = getEntry(root, 'servers') === undefined && devcontainer !== undefined ? devcontainer : root;
      add(getValue(holder, 'servers'), '"servers"');
      inputsNode = getValue(holder, 'inputs');
      sandboxNode = getValue(holder, 'sandbox');
      break;
    }
    case 'vscode-settings': {
      const mcp = getValue(root, 'mcp');
      add(getValue(mcp, 'servers'), '"mcp.servers"');
      inputsNode = getValue(mcp, 'inputs');
      sandboxNode = getValue(mcp, 'sandbox');
      break;
    }
    case 'claude-code': {
      add(getValue(root, 'mcpServers'), '"mcpServers"');
      const projects = getValue(root, 'projects');
      if (projects?.kind === 'object') {
        for (const project of projects.entries) {
          const folder = context.workspaceFolders.find((candidate) => samePath(candidate, project.key, context.platform));
          if (folder !== undefined)
            add(getValue(project.value, 'mcpServers'), `projects[${JSON.stringify(project.key)}].mcpServers`, folder);
        }
      }
      break;
    }
    case 'codex':
      add(getValue(root, 'mcp_servers'), '[mcp_servers]');
      break;
    case 'zed':
      add(getValue(root, 'context_servers'), '"context_servers"');
      break;
    case 'opencode': {
      // v1 names servers directly under "mcp"; v2 under "mcp.servers" (a v1 server called "servers" has a "type").
      const mcp = getValue(root, 'mcp');
      const v2 = getValue(mcp, 'servers');
      if (v2?.kind === 'object' && getValue(v2, 'type') === undefined) add(v2, '"mcp.servers"');
      else add(mcp, '"mcp"');
      break;
    }
    default:
      add(getValue(root, 'mcpServers'), '"mcpServers"');
  }
  return { groups, inputsNode, sandboxNode };
}

interface RawEntry {
  readonly name: string;
  readonly keyPos: Position;
  readonly node: ConfigNode;
}

function* entriesOf(group: ServerGroup, format: ConfigFormat, sink: DiagnosticSink): Generator<RawEntry> {
  const { node } = group;
  if (node.kind === 'null') return;
  if (node.kind === 'object') {
    for (const entry of node.entries) {
      if (format === 'zed' && isZedExtensionEntry(entry.value)) {
        sink.warning(entry.keyPos, `context server "${entry.key}" is provided by a Zed extension and is not monitored`);
        continue;
      }
      yield { name: entry.key, keyPos: entry.keyPos, node: entry.value };
    }
    return;
  }
  if (node.kind === 'array' && format === 'continue') {
    for (const [index, item] of node.items.entries()) {
      const name = getValue(item, 'name');
      if (name?.kind !== 'string' || name.value.length === 0) {
        sink.error(item.pos, `server entry ${index + 1} of ${group.label} has no "name"`);
        continue;
      }
      yield { name: name.value, keyPos: item.pos, node: item };
    }
    return;
  }
  sink.error(node.pos, `${group.label} must be an object mapping server names to definitions, found ${describeKind(node)}`);
}

function isZedExtensionEntry(node: ConfigNode): boolean {
  const source = getValue(node, 'source');
  if (source?.kind === 'string') return source.value === 'extension';
  return getValue(node, 'command') === undefined && getValue(node, 'url') === undefined && getValue(node, 'settings') !== undefined;
}

function warnUndefinedInputs(servers: readonly ServerWithoutId[], inputs: readonly InputDefinition[], sink: DiagnosticSink): void {
  const defined = new Set(inputs.map((input) => input.id));
  for (const server of servers) {
    for (const id of server.missingInputs ?? []) {
      if (!defined.has(id)) {
        sink.warning(
          { line: server.source.line, column: server.source.column },
          `server "${server.name}" uses \${input:${id}}, which "inputs" does not define`,
          server.name,
        );
      }
    }
  }
}

/** `${file}#${name}`, and `#2`, `#3`... when a name repeats within the file. */
function assignIds(servers: readonly ServerWithoutId[], file: string): ServerConfig[] {
  const seen = new Map<string, number>();
  return servers.map((server) => {
    const count = (seen.get(server.name) ?? 0) + 1;
    seen.set(server.name, count);
    return { id: count === 1 ? `${file}#${server.name}` : `${file}#${server.name}#${count}`, ...server };
  });
}

function samePath(a: string, b: string, platform: NodeJS.Platform): boolean {
  const path = pathApi(platform);
  const normalize = (value: string): string => {
    const normalized = path.normalize(value).replace(/[\\/]+$/, '');
    return platform === 'win32' || platform === 'darwin' ? normalized.toLowerCase() : normalized;
  };
  return normalize(a) === normalize(b);
}
