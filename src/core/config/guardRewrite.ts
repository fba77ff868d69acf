// "Guard This Server" / "Unguard" as text edits on one config file. Only the entry's command and args change: the
// original command's own text moves to the front of args behind the guard's `--`, so comments, commas, quoting,
// indentation, key order and every other server stay byte for byte, and Unguard moves it back exactly.

import { parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import type * as SmolToml from 'smol-toml' with { 'resolution-mode': 'import' };
import { isMap, isPair, isScalar, isSeq, parseDocument, Scalar, type Node as YamlNode, type YAMLMap } from 'yaml';
import { GUARD_LAUNCHER, guardPrefix, type GuardLauncher } from '../guardLauncher';
import { guardedUpstreamAt } from '../guarded';
import type { ConfigFormat } from '../model';
import { DIALECTS } from './dialects';
import { LineIndex } from './lineIndex';
import { locateTomlKeys, pathKey } from './tomlKeyLocator';

// smol-toml's types describe its ES module only; its package also ships the CommonJS build this project loads.
// Its members are read at the call, not here: the extension loads the parser from its own file on first use (esbuild.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const smolToml = require('smol-toml') as typeof SmolToml;

/** Thrown with a message that names the file, line and column of what cannot be rewritten. */
export class GuardRewriteError extends Error {
  override readonly name = 'GuardRewriteError';
}

export interface RewriteRequest {
  readonly text: string;
  /** Used for messages, and to tell a Continue JSON block from a YAML one. */
  readonly file: string;
  readonly format: ConfigFormat;
  /** The server's name as the file writes it (its key, or Continue's `name`). */
  readonly name: string;
}

/** The file's text with that server run through `<launcher> --name NAME -- <its command> <its args>`. */
export function guardEntry(request: RewriteRequest, launcher: GuardLauncher = GUARD_LAUNCHER): string {
  const entry = locateEntry(request);
  const { command, args } = entry;
  const words = [command.value, ...(args?.items.map((item) => item.value) ?? [])];
  if (guardedUpstreamAt(words) !== null) throw entry.fail(command.start, `server "${request.name}" already runs through mcp-health guard`);
  // Clients expand variables in args: a `$` in the name would reach the guard as something else.
  if (request.name.includes('$'))
    throw entry.fail(
      command.start,
      `server "${request.name}" has a "$" in its name, which the client would expand in the guard's --name; rename it first`,
    );
  // The guard's command line ends its own options at the first `--`.
  if (request.name === '--')
    throw entry.fail(command.start, 'a server named "--" cannot be passed to the guard as its --name; rename it first');
  const prefix = guardPrefix(request.name, launcher);
  const items = [...prefix.args.map(entry.quote), entry.itemText(command, args === undefined || args.block === undefined)];
  const edits: Edit[] = [{ start: command.start, end: command.end, text: entry.quote(prefix.command) }];
  if (args === undefined) {
    edits.push({ start: command.end, end: command.end, text: entry.newArgs(freshList(items)) });
  } else if (args.block !== undefined) {
    const { indent, dashAt } = args.block;
    edits.push({ start: dashAt[0]!, end: dashAt[0]!, text: items.map((item) => `- ${item}${lineEnding(request.text)}${indent}`).join('') });
  } else if (args.items.length === 0) {
    edits.push({ start: args.open, end: args.open, text: items.join(', ') });
  } else {
    edits.push({ start: args.items[0]!.start, end: args.items[0]!.start, text: `${items.join(', ')}, ` });
  }
  return applyEdits(request.text, edits);
}

/** The file's text with a guarded server's own command and args put back, exactly as before "Guard This Server". */
export function unguardEntry(request: RewriteRequest): string {
  const entry = locateEntry(request);
  const { command, args } = entry;
  const words = [command.value, ...(args?.items.map((item) => item.value) ?? [])];
  const upstreamAt = guardedUpstreamAt(words);
  if (args === undefined || upstreamAt === null)
    throw entry.fail(command.start, `server "${request.name}" does not run through mcp-health guard`);
  const upstream = args.items[upstreamAt - 1]!;
  const kept = args.items.slice(upstreamAt);
  const startOf = (index: number): number => args.block?.dashAt[index] ?? args.items[index]!.start;
  const edits: Edit[] = [{ start: command.start, end: command.end, text: upstream.raw }];
  if (kept.length > 0) {
    edits.push({ start: startOf(0), end: startOf(upstreamAt), text: '' });
  } else {
    // Guard adds a whole args list after the command only when the entry had none; that exact text goes again.
    const added = entry.newArgs(freshList(args.items.map((item) => item.raw)));
    if (request.text.startsWith(added, command.end)) edits.push({ start: command.end, end: command.end + added.length, text: '' });
    else if (args.block !== undefined) edits.push({ start: startOf(0), end: args.items[args.items.length - 1]!.end, text: '[]' });
    else edits.push({ start: args.items[0]!.start, end: args.items[args.items.length - 1]!.end, text: '' });
  }
  return applyEdits(request.text, edits);
}

/** `[ a, b ]`: the spaces inside tell it apart from an emptied `[]` that Guard filled (`[a, b]`), so Unguard knows. */
function freshList(items: readonly string[]): string {
  return `[ ${items.join(', ')} ]`;
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

function applyEdits(text: string, edits: readonly Edit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start))
    result = result.slice(0, edit.start) + edit.text + result.slice(edit.end);
  return result;
}

/** A string value as written: its span, its source text and its meaning. */
interface Token {
  readonly start: number;
  readonly end: number;
  readonly raw: string;
  readonly value: string;
}

interface ArgsList {
  /** Just after the `[` of a flow list. */
  readonly open: number;
  readonly items: readonly Token[];
  /** A YAML block sequence: where each item's `-` is, and the indentation of those lines. */
  readonly block?: { readonly indent: string; readonly dashAt: readonly number[] };
}

interface LocatedEntry {
  readonly command: Token;
  readonly args?: ArgsList;
  /** The declaration of an args list holding `list`, written right after the command's value. */
  newArgs(list: string): string;
  quote(value: string): string;
  /** The command's own text as an item of args (flow = inside `[...]`). */
  itemText(command: Token, flow: boolean): string;
  fail(offset: number, message: string): GuardRewriteError;
}

function locateEntry(request: RewriteRequest): LocatedEntry {
  if (request.format === 'codex') return locateToml(request);
  if (request.format === 'continue' && !/\.json$/i.test(request.file)) return locateYaml(request);
  return locateJson(request);
}

function failer(request: RewriteRequest): (offset: number, message: string) => GuardRewriteError {
  const lines = new LineIndex(request.text);
  return (offset, message) => {
    const { line, column } = lines.positionAt(offset);
    return new GuardRewriteError(`${request.file}:${line}:${column}: ${message}`);
  };
}

function remoteMessage(name: string): string {
  // Headers often hold tokens, and a rewritten entry would have to pass them on the guard's command line.
  return `server "${name}" is a remote (HTTP/SSE) server; the editor only guards stdio servers (see mcp-health guard --print-config ${name})`;
}

// ---------------------------------------------------------------------------------------------------------------- JSON

function locateJson(request: RewriteRequest): LocatedEntry {
  const { text, name, format } = request;
  const fail = failer(request);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || root === undefined) {
    throw fail(
      errors[0]?.offset ?? 0,
      `the file has a JSON error (${printParseErrorCode(errors[0]?.error ?? 0)}); fix it before guarding a server`,
    );
  }
  const found = jsonEntryPaths(root, format, name)
    .map((path) => lastNodeAtLocation(root, path))
    .filter((node): node is JsonNode => node !== undefined);
  const entry = single(found, request, name, (node) => node.offset);
  if (entry.type !== 'object') throw fail(entry.offset, `server "${name}" is not an object`);
  // Its program and arguments are one array: there is no separate command to put the guard in front of.
  if (format === 'opencode')
    throw fail(
      entry.offset,
      `server "${name}" is an opencode entry; guard it by hand with the entry mcp-health guard --print-config prints`,
    );
  let holder = entry;
  let command = jsonProperty(entry, 'command');
  // Zed's older shape nests the process: "command": { "path", "args" }.
  if (format === 'zed' && command?.type === 'object') {
    holder = command;
    command = jsonProperty(command, 'path');
  }
  if (command === undefined) {
    const remote = DIALECTS[format].urlKeys.some(({ key }) => jsonProperty(entry, key) !== undefined);
    throw fail(entry.offset, remote ? remoteMessage(name) : `server "${name}" has no "command"`);
  }
  const argsNode = jsonProperty(holder, 'args');
  const token = (node: JsonNode, what: string): Token => {
    if (node.type !== 'string') throw fail(node.offset, `${what} of server "${name}" is not a string`);
    return {
      start: node.offset,
      end: node.offset + node.length,
      raw: text.slice(node.offset, node.offset + node.length),
      value: String(node.value),
    };
  };
  let args: ArgsList | undefined;
  if (argsNode !== undefined) {
    if (argsNode.type !== 'array') throw fail(argsNode.offset, `"args" of server "${name}" is not a list`);
    args = { open: argsNode.offset + 1, items: (argsNode.children ?? []).map((item) => token(item, 'an item of "args"')) };
  }
  return {
    command: token(command, '"command"'),
    ...(args ? { args } : {}),
    newArgs: (list) => `, "args": ${list}`,
    quote: (value) => JSON.stringify(value),
    itemText: (commandToken) => commandToken.raw,
    fail,
  };
}

function jsonEntryPaths(root: JsonNode, format: ConfigFormat, name: string): (string | number)[][] {
  switch (format) {
    case 'vscode':
      return [
        ['servers', name],
        ['customizations', 'vscode', 'mcp', 'servers', name],
      ];
    case 'vscode-settings':
      return [['mcp', 'servers', name]];
    case 'zed':
      return [['context_servers', name]];
    case 'opencode':
      return [
        ['mcp', name],
        ['mcp', 'servers', name],
      ];
    case 'claude-code': {
      const projects = lastNodeAtLocation(root, ['projects']);
      const keys = projects?.type === 'object' ? (projects.children ?? []).map((property) => String(property.children?.[0]?.value)) : [];
      return [['mcpServers', name], ...keys.map((key) => ['projects', key, 'mcpServers', name])];
    }
    case 'continue': {
      const list = root.type === 'array' ? root : lastNodeAtLocation(root, ['mcpServers']);
      const prefix = root.type === 'array' ? [] : ['mcpServers'];
      if (list?.type !== 'array') return [['mcpServers', name]];
      return (list.children ?? []).flatMap((item, index) =>
        lastNodeAtLocation(item, ['name'])?.value === name ? [[...prefix, index]] : [],
      );
    }
    default:
      return [['mcpServers', name]];
  }
}

/**
 * Like jsonc-parser's findNodeAtLocation, but a key written twice resolves to its last value, as clients read it
 * (JSON.parse keeps the last): Guard This Server must rewrite the entry that actually runs.
 */
function lastNodeAtLocation(root: JsonNode, path: readonly (string | number)[]): JsonNode | undefined {
  let node: JsonNode | undefined = root;
  for (const segment of path) {
    if (node === undefined) return undefined;
    node = typeof segment === 'number' ? (node.type === 'array' ? node.children?.[segment] : undefined) : jsonProperty(node, segment);
  }
  return node;
}

function jsonProperty(node: JsonNode, key: string): JsonNode | undefined {
  if (node.type !== 'object') return undefined;
  // The last one wins, as when a client reads the file.
  const properties = (node.children ?? []).filter((property) => property.children?.[0]?.value === key);
  return properties[properties.length - 1]?.children?.[1];
}

/** The one entry of that name; several (a Continue list, a devcontainer beside mcp.json) are refused, naming each line. */
function single<T>(found: readonly T[], request: RewriteRequest, name: string, offsetOf: (item: T) => number): T {
  const fail = failer(request);
  if (found.length === 0) throw fail(0, `no server named "${name}" in this file`);
  if (found.length > 1) {
    const index = new LineIndex(request.text);
    const lines = found.map((item) => index.positionAt(offsetOf(item)).line);
    throw fail(
      offsetOf(found[0]!),
      `${found.length} servers are named "${name}" in this file (lines ${lines.join(' and ')}); rewrite the one you mean by hand`,
    );
  }
  return found[0]!;
}

/** The file's own line ending, so a line the rewrite adds to a CRLF file ends in CRLF too. */
function lineEnding(text: string): string {
  return /\r\n/.test(text) ? '\r\n' : '\n';
}

// ---------------------------------------------------------------------------------------------------------------- TOML

function locateToml(request: RewriteRequest): LocatedEntry {
  const { text, name } = request;
  const fail = failer(request);
  let parsed: Record<string, unknown>;
  try {
    parsed = smolToml.parse(text) as Record<string, unknown>;
  } catch {
    throw fail(0, 'the file has a TOML error; fix it before guarding a server');
  }
  const servers = parsed.mcp_servers as Record<string, unknown> | undefined;
  const server = servers !== null && typeof servers === 'object' ? (servers[name] as Record<string, unknown> | undefined) : undefined;
  if (server === null || typeof server !== 'object') throw fail(0, `no server named "${name}" in [mcp_servers]`);
  const locations = locateTomlKeys(text);
  const lines = lineStarts(text);
  const offsetOf = (key: string): number | undefined => {
    const pos = locations.values.get(pathKey(['mcp_servers', name, key]));
    return pos === undefined ? undefined : lines[pos.line - 1]! + pos.column - 1;
  };
  const commandAt = offsetOf('command');
  if (server.command === undefined || commandAt === undefined) {
    throw fail(offsetOf('url') ?? 0, server.url !== undefined ? remoteMessage(name) : `server "${name}" has no "command"`);
  }
  const command = tomlString(text, commandAt, fail, '"command"');
  let args: ArgsList | undefined;
  const argsAt = offsetOf('args');
  if (server.args !== undefined) {
    if (argsAt === undefined || text[argsAt] !== '[')
      throw fail(argsAt ?? commandAt, `"args" of server "${name}" is not a list written in place`);
    args = { open: argsAt + 1, items: tomlStringList(text, argsAt + 1, fail) };
  }
  const key = tomlKeyBefore(text, commandAt);
  if (!/(^|\.\s*)command$/.test(key.raw)) throw fail(key.start, `the "command" key of server "${name}" is quoted; rewrite it by hand`);
  const prefix = key.raw.slice(0, key.raw.length - 'command'.length);
  const lineStart = text.lastIndexOf('\n', key.start - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart, key.start))?.[0] ?? '';
  return {
    command,
    ...(args ? { args } : {}),
    newArgs: (list) => (key.inline ? `, ${prefix}args = ${list}` : `${lineEnding(text)}${indent}${prefix}args = ${list}`),
    // A TOML basic string escapes what JSON escapes, plus DEL.
    quote: (value) => JSON.stringify(value).replace(/\x7f/g, '\\u007f'),
    itemText: (commandToken) => commandToken.raw,
    fail,
  };
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

/** The key written before `= value`, and whether it sits inside an inline table (then no new line may follow). */
function tomlKeyBefore(text: string, valueAt: number): { raw: string; start: number; inline: boolean } {
  let i = valueAt - 1;
  while (i >= 0 && /[ \t]/.test(text[i]!)) i--;
  const equals = i;
  i--;
  while (i >= 0 && /[A-Za-z0-9_\-. \t"']/.test(text[i]!)) i--;
  const raw = text.slice(i + 1, equals).trim();
  const start = equals - text.slice(i + 1, equals).trimStart().length;
  return { raw, start, inline: i >= 0 && (text[i] === '{' || text[i] === ',') };
}

function tomlString(text: string, at: number, fail: (offset: number, message: string) => GuardRewriteError, what: string): Token {
  const quote = text[at];
  if ((quote !== '"' && quote !== "'") || text.startsWith(quote.repeat(3), at))
    throw fail(at, `${what} is not a one-line TOML string; rewrite it by hand`);
  let i = at + 1;
  while (i < text.length && text[i] !== quote && text[i] !== '\n') i += quote === '"' && text[i] === '\\' ? 2 : 1;
  if (text[i] !== quote) throw fail(at, `${what} is not a closed string`);
  const raw = text.slice(at, i + 1);
  const value = (smolToml.parse(`v = ${raw}`) as { v: string }).v;
  return { start: at, end: i + 1, raw, value };
}

function tomlStringList(text: string, from: number, fail: (offset: number, message: string) => GuardRewriteError): Token[] {
  const items: Token[] = [];
  let i = from;
  for (;;) {
    while (i < text.length && /[\s,]/.test(text[i]!)) i++;
    if (text[i] === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (text[i] === ']') return items;
    if (i >= text.length) throw fail(from, '"args" is not closed');
    const item = tomlString(text, i, fail, 'an item of "args"');
    items.push(item);
    i = item.end;
  }
}

// ---------------------------------------------------------------------------------------------------------------- YAML

function locateYaml(request: RewriteRequest): LocatedEntry {
  const { text, name } = request;
  const fail = failer(request);
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) throw fail(doc.errors[0]!.pos[0], 'the file has a YAML error; fix it before guarding a server');
  const entry = single(yamlEntries(doc.contents, name), request, name, (map) => map.range?.[0] ?? 0);
  const pair = (key: string) =>
    entry.items
      .filter(isPair)
      .filter((item) => isScalar(item.key) && item.key.value === key)
      .pop();
  const commandPair = pair('command');
  if (commandPair === undefined || commandPair.value === null) {
    throw fail(entry.range?.[0] ?? 0, pair('url') !== undefined ? remoteMessage(name) : `server "${name}" has no "command"`);
  }
  const token = (node: unknown, what: string): Token => {
    if (!isScalar(node) || node.range === undefined || node.range === null)
      throw fail(0, `${what} of server "${name}" is not a plain value`);
    const [start, end] = node.range;
    const raw = text.slice(start, end);
    const oneLine = node.type === Scalar.PLAIN || node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
    if (!oneLine || /[\r\n]/.test(raw) || node.anchor !== undefined)
      throw fail(start, `${what} of server "${name}" is not a one-line value; rewrite it by hand`);
    return { start, end, raw, value: String(node.value) };
  };
  const command = token(commandPair.value, '"command"');
  const argsNode = pair('args')?.value;
  let args: ArgsList | undefined;
  if (argsNode !== undefined && argsNode !== null) {
    if (!isSeq(argsNode) || argsNode.range === undefined || argsNode.range === null)
      throw fail(command.start, `"args" of server "${name}" is not a list`);
    const items = argsNode.items.map((item) => token(item, 'an item of "args"'));
    if (argsNode.flow) {
      args = { open: text.indexOf('[', argsNode.range[0]) + 1, items };
    } else {
      // Before the item, not at it: a plain item such as `-y` starts with a dash of its own.
      const dashAt = items.map((item) => text.lastIndexOf('-', item.start - 1));
      const lineStart = text.lastIndexOf('\n', dashAt[0]! - 1) + 1;
      const indent = text.slice(lineStart, dashAt[0]);
      if (!/^[ \t]*$/.test(indent)) throw fail(dashAt[0]!, `"args" of server "${name}" is laid out in a way this rewrite does not handle`);
      args = { open: dashAt[0]!, items, block: { indent, dashAt } };
    }
  }
  const keyAt = (commandPair.key as YamlNode).range?.[0] ?? command.start;
  const column = keyAt - (text.lastIndexOf('\n', keyAt - 1) + 1);
  return {
    command,
    ...(args ? { args } : {}),
    newArgs: (list) => (entry.flow ? `, args: ${list}` : `${lineEnding(text)}${' '.repeat(column)}args: ${list}`),
    quote: (value) => JSON.stringify(value),
    itemText: (commandToken, flow) => {
      // A plain word with a flow indicator would end the list early; a block item can hold it.
      if (flow && /^[^"']/.test(commandToken.raw) && /[,[\]{}#]/.test(commandToken.raw))
        throw fail(commandToken.start, `"command" of server "${name}" needs quotes to move into "args"; quote it first`);
      return commandToken.raw;
    },
    fail,
  };
}

function yamlEntries(contents: unknown, name: string): YAMLMap[] {
  const named = (list: unknown): YAMLMap[] =>
    isSeq(list) ? list.items.filter((item): item is YAMLMap => isMap(item) && item.get('name') === name) : [];
  if (isSeq(contents)) return named(contents);
  if (!isMap(contents)) return [];
  const servers = contents.get('mcpServers', true);
  if (isSeq(servers)) return named(servers);
  if (isMap(servers)) {
    const entry = servers.get(name, true);
    return isMap(entry) ? [entry] : [];
  }
  return contents.get('name') === name ? [contents] : [];
}

/** The one span that differs between two texts, so the editor applies (and undoes) just that, not the whole file. */
export function changedSpan(before: string, after: string): { start: number; end: number; text: string } {
  let start = 0;
  const limit = Math.min(before.length, after.length);
  while (start < limit && before[start] === after[start]) start++;
  let tail = 0;
  while (tail < limit - start && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}
