import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseConfigText } from '../../../../src/core/config/discover';
import { changedSpan, guardEntry, GuardRewriteError, unguardEntry, type RewriteRequest } from '../../../../src/core/config/guardRewrite';
import { guardedEntry } from '../../../../src/cli/guardConfig';
import { parseGuardArgs } from '../../../../src/cli/guardArgs';
import { GUARD_LAUNCHER, guardPrefix } from '../../../../src/core/guardLauncher';
import { guardedName, guardedUpstreamAt } from '../../../../src/core/guarded';
import type { ConfigFormat, ServerConfig } from '../../../../src/core/model';
import { parseContext } from './helpers';

interface Spec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[] | undefined;
}

function parsed(text: string, file: string, format: ConfigFormat): ServerConfig[] {
  const output = parseConfigText(text, file, format, parseContext());
  assert.deepEqual(
    output.diagnostics.filter((d) => d.severity === 'error'),
    [],
    text,
  );
  return output.servers;
}

/** Guard one server: it parses to launcher + `--` + its old command line, every other server is unchanged, and Unguard gives the text back. */
function roundTrip(request: RewriteRequest): string {
  const { text, file, format, name } = request;
  const before = parsed(text, file, format);
  const guarded = guardEntry(request);
  const after = parsed(guarded, file, format);
  assert.equal(after.length, before.length);
  for (const [index, server] of before.entries()) {
    const now = after[index]!;
    // Positions below an inserted args line move; everything else of every other server stays.
    if (server.name !== name) {
      assert.deepEqual({ ...now, source: server.source }, server);
      continue;
    }
    const prefix = guardPrefix(name);
    assert.equal(now.command, prefix.command);
    assert.deepEqual(now.args, [...prefix.args, server.command, ...(server.args ?? [])]);
    assert.equal(guardedName(now), name);
    assert.deepEqual({ ...now, command: server.command, args: server.args, source: server.source }, { ...server, args: server.args });
  }
  assert.equal(unguardEntry({ ...request, text: guarded }), text);
  return guarded;
}

// ----------------------------------------------------------------------------------------------- generated configs

const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,7}$/);
const anyText = fc.string({
  minLength: 1,
  maxLength: 12,
  unit: fc.constantFrom('a', ' ', '"', "'", '\\', '$', '{', '}', ',', '#', '-', 'é', '\t', ':', '[', '/'),
});
const commandText = anyText.filter((value) => value.trim().length > 0);
const spec = (name: fc.Arbitrary<string>): fc.Arbitrary<Spec> =>
  fc
    .record({ name, command: commandText, args: fc.option(fc.array(anyText, { maxLength: 3 }), { nil: undefined }) })
    .filter((server) => guardedUpstreamAt([server.command, ...(server.args ?? [])]) === null);
const specs = (name: fc.Arbitrary<string>) =>
  fc.uniqueArray(spec(name.filter((value) => !value.includes('$') && value !== '--')), {
    minLength: 1,
    maxLength: 4,
    selector: (server) => server.name,
  });

interface Style {
  readonly indent: string;
  readonly comments: boolean;
  readonly trailingCommas: boolean;
  readonly inlineArgs: boolean;
}
const style: fc.Arbitrary<Style> = fc.record({
  indent: fc.constantFrom('  ', '    ', '\t'),
  comments: fc.boolean(),
  trailingCommas: fc.boolean(),
  inlineArgs: fc.boolean(),
});

function jsonServers(servers: readonly Spec[], s: Style, depth: number, zedNested = false): string {
  const pad = (n: number): string => s.indent.repeat(n);
  const comment = (text: string): string => (s.comments ? ` // ${text}` : '');
  const list = (items: readonly string[], n: number): string =>
    s.inlineArgs || items.length === 0
      ? `[${items.map((item) => JSON.stringify(item)).join(', ')}]`
      : `[\n${items.map((item) => `${pad(n + 1)}${JSON.stringify(item)},${comment('arg')}`).join('\n')}\n${pad(n)}]`;
  const entries = servers.map((server) => {
    const props = [`"type": "stdio"`];
    if (zedNested) {
      const inner = [`"path": ${JSON.stringify(server.command)}`, ...(server.args ? [`"args": ${list(server.args, depth + 2)}`] : [])];
      props.splice(0, 1, `"command": { ${inner.join(', ')} }`);
    } else {
      props.push(`"command": ${JSON.stringify(server.command)}${comment('the program')}\n${pad(depth + 1)}`);
      if (server.args) props.push(`"args": ${list(server.args, depth + 1)}`);
    }
    props.push(`"env": { "TOKEN": "x" }`);
    return `${pad(depth)}${JSON.stringify(server.name)}: {\n${props.map((prop) => `${pad(depth + 1)}${prop}`).join(',\n')}${s.trailingCommas ? ',' : ''}\n${pad(depth)}}`;
  });
  return `${entries.join(`,${comment('next')}\n`)}${s.trailingCommas ? ',' : ''}`;
}

function tomlConfig(servers: readonly Spec[], s: Style, literal: boolean): string {
  const quote = (value: string): string => (literal && !/['\n\r\t\x7f]/.test(value) ? `'${value}'` : JSON.stringify(value));
  const comment = (text: string): string => (s.comments ? ` # ${text}` : '');
  const list = (items: readonly string[]): string =>
    s.inlineArgs ? `[${items.map(quote).join(', ')}]` : `[\n${items.map((item) => `  ${quote(item)},${comment('arg')}`).join('\n')}\n]`;
  // Odd servers as inline tables in one [mcp_servers] table (which must come before its sub-tables), the rest as tables.
  const inline = servers
    .filter((_, index) => index % 2 === 1 && s.inlineArgs)
    .map((server) => {
      const parts = [`command = ${quote(server.command)}`, ...(server.args ? [`args = ${list(server.args)}`] : [])];
      return `${server.name} = { ${parts.join(', ')} }${comment('inline')}`;
    });
  const tables = servers
    .filter((_, index) => !(index % 2 === 1 && s.inlineArgs))
    .map((server) => {
      const lines = [
        `[mcp_servers.${server.name}]${comment('server')}`,
        `${s.indent}command = ${quote(server.command)}${comment('program')}`,
      ];
      if (server.args) lines.push(`args = ${list(server.args)}`);
      lines.push(`startup_timeout_sec = 10`);
      return lines.join('\n');
    });
  if (inline.length > 0) tables.unshift(`[mcp_servers]\n${inline.join('\n')}`);
  return `# Codex\nmodel = "o"\n\n${tables.join('\n\n')}\n`;
}

function yamlConfig(servers: readonly Spec[], s: Style, asMap: boolean): string {
  const pad = s.indent === '\t' ? '  ' : s.indent;
  const scalar = (value: string): string => JSON.stringify(value);
  const comment = (text: string): string => (s.comments ? ` # ${text}` : '');
  const entries = servers.map((server) => {
    const lines = asMap ? [`${pad}${server.name}:${comment('server')}`] : [`${pad}- name: ${server.name}${comment('server')}`];
    const inner = asMap ? pad + pad : `${pad}  `;
    lines.push(`${inner}command: ${scalar(server.command)}${comment('program')}`);
    if (server.args && s.inlineArgs) lines.push(`${inner}args: [${server.args.map(scalar).join(', ')}]`);
    else if (server.args && server.args.length > 0)
      lines.push(`${inner}args:${comment('list')}`, ...server.args.map((arg) => `${inner}${pad}- ${scalar(arg)}`));
    else if (server.args) lines.push(`${inner}args: []`);
    return lines.join('\n');
  });
  return `name: Tools\nversion: 0.0.1\nschema: v1\nmcpServers:\n${entries.join('\n')}\n`;
}

describe('Guard This Server / Unguard rewrite: generated configs', () => {
  const pick = fc.nat();
  it('VS Code mcp.json (JSONC): only the entry changes, and Unguard restores the text exactly', () => {
    fc.assert(
      fc.property(specs(anyText), style, pick, (servers, s, index) => {
        const comment = s.comments ? '// workspace servers\n' : '';
        const text = `${comment}{\n${s.indent}"inputs": [],\n${s.indent}"servers": {\n${jsonServers(servers, s, 2)}\n${s.indent}}\n}\n`;
        roundTrip({ text, file: '/work/proj/.vscode/mcp.json', format: 'vscode', name: servers[index % servers.length]!.name });
      }),
      { numRuns: 300 },
    );
  });

  it('mcpServers JSON (.mcp.json, Cursor, Claude Desktop, Windsurf, Gemini, Roo, Cline), VS Code settings and Zed', () => {
    const formats = fc.constantFrom(
      ['/work/proj/.mcp.json', 'mcp-json', ['mcpServers']],
      ['/work/proj/.cursor/mcp.json', 'cursor', ['mcpServers']],
      ['/home/u/.gemini/settings.json', 'gemini', ['mcpServers']],
      ['/home/u/.config/Code/User/settings.json', 'vscode-settings', ['mcp', 'servers']],
      ['/work/proj/.zed/settings.json', 'zed', ['context_servers']],
      ['/work/proj/.kiro/settings/mcp.json', 'kiro', ['mcpServers']],
      ['/home/u/.copilot/mcp-config.json', 'copilot-cli', ['mcpServers']],
      ['/work/proj/.agents/mcp_config.json', 'antigravity', ['mcpServers']],
    ) as fc.Arbitrary<[string, ConfigFormat, string[]]>;
    fc.assert(
      fc.property(specs(anyText), style, pick, formats, fc.boolean(), (servers, s, index, [file, format, path], nested) => {
        const plain = { ...s, comments: s.comments && format !== 'mcp-json' };
        const zedNested = format === 'zed' && nested;
        let body = jsonServers(servers, plain, path.length + 1, zedNested);
        for (let depth = path.length; depth >= 1; depth--)
          body = `${plain.indent.repeat(depth)}"${path[depth - 1]}": {\n${body}\n${plain.indent.repeat(depth)}}`;
        const text = `{\n${plain.indent}"theme": "dark",\n${body}\n}`;
        roundTrip({ text, file, format, name: servers[index % servers.length]!.name });
      }),
      { numRuns: 300 },
    );
  });

  it('Codex config.toml: tables, inline tables, literal and basic strings, comments', () => {
    fc.assert(
      fc.property(specs(word), style, pick, fc.boolean(), (servers, s, index, literal) => {
        const text = tomlConfig(servers, s, literal);
        roundTrip({ text, file: '/home/u/.codex/config.toml', format: 'codex', name: servers[index % servers.length]!.name });
      }),
      { numRuns: 300 },
    );
  });

  it('Continue YAML: list and map forms, block and flow args, comments', () => {
    fc.assert(
      fc.property(specs(word), style, pick, fc.boolean(), (servers, s, index, asMap) => {
        const text = yamlConfig(servers, s, asMap);
        roundTrip({
          text,
          file: '/work/proj/.continue/mcpServers/tools.yaml',
          format: 'continue',
          name: servers[index % servers.length]!.name,
        });
      }),
      { numRuns: 300 },
    );
  });
});

// --------------------------------------------------------------------------------------------------- fixed fixtures

describe('Guard This Server / Unguard rewrite: fixtures', () => {
  const vscodeFile = '/work/proj/.vscode/mcp.json';
  const vscodeText = [
    '{',
    '  // Servers for this repo',
    '  "servers": {',
    '    "everything": {',
    '      "type": "stdio",',
    '      "command": "npx", // pinned below',
    '      "args": [',
    '        "-y",',
    '        "@modelcontextprotocol/server-everything", // stdio',
    '      ],',
    '    },',
    '    "files": { "command": "node", "args": [] },',
    '    "remote": { "type": "http", "url": "https://example.invalid/mcp", "headers": { "Authorization": "Bearer x" } },',
    '  },',
    '}',
    '',
  ].join('\n');

  it('keeps comments and trailing commas, and puts the old command behind --', () => {
    const guarded = roundTrip({ text: vscodeText, file: vscodeFile, format: 'vscode', name: 'everything' });
    assert.ok(guarded.includes('"command": "npx", // pinned below'));
    assert.ok(
      guarded.includes(
        '"-y", "mcp-health", "guard", "--name", "everything", "--", "npx", "-y",\n        "@modelcontextprotocol/server-everything", // stdio',
      ),
    );
    const files = roundTrip({ text: vscodeText, file: vscodeFile, format: 'vscode', name: 'files' });
    assert.ok(files.includes('"files": { "command": "npx", "args": ["-y", "mcp-health", "guard", "--name", "files", "--", "node"] },'));
  });

  it('uses the launcher it is given (the CLI path in tests, npx by default)', () => {
    const guarded = guardEntry(
      { text: vscodeText, file: vscodeFile, format: 'vscode', name: 'files' },
      { command: 'node', args: ['/opt/mcp-health/dist/cli.js', 'guard'] },
    );
    assert.ok(guarded.includes('"command": "node", "args": ["/opt/mcp-health/dist/cli.js", "guard", "--name", "files", "--", "node"]'));
    assert.equal(unguardEntry({ text: guarded, file: vscodeFile, format: 'vscode', name: 'files' }), vscodeText);
    assert.deepEqual(GUARD_LAUNCHER, { command: 'npx', args: ['-y', 'mcp-health', 'guard'] });
  });

  it('refuses, naming the place: remote entries, guarded entries, missing names, broken files', () => {
    const request = { text: vscodeText, file: vscodeFile, format: 'vscode' as const };
    assert.throws(
      () => guardEntry({ ...request, name: 'remote' }),
      (error: unknown) =>
        error instanceof GuardRewriteError &&
        /^\/work\/proj\/\.vscode\/mcp\.json:13:\d+: server "remote" is a remote \(HTTP\/SSE\) server/.test(error.message) &&
        !error.message.includes('Bearer'),
    );
    const guarded = guardEntry({ ...request, name: 'files' });
    assert.throws(
      () => guardEntry({ ...request, text: guarded, name: 'files' }),
      /mcp\.json:12:\d+: server "files" already runs through mcp-health guard/,
    );
    assert.throws(
      () => unguardEntry({ ...request, name: 'files' }),
      /mcp\.json:12:\d+: server "files" does not run through mcp-health guard/,
    );
    assert.throws(() => guardEntry({ ...request, name: 'nope' }), /no server named "nope"/);
    assert.throws(
      () => guardEntry({ ...request, text: '{ "servers": { "${x}": { "command": "node" } } }', name: '${x}' }),
      /mcp\.json:1:\d+: server "\$\{x\}" has a "\$" in its name/,
    );
    assert.throws(() => guardEntry({ ...request, text: '{ "servers": { "a": { "command": "x" }', name: 'a' }), /JSON error/);
    assert.throws(
      () => guardEntry({ text: '[mcp_servers.r]\nurl = "https://example.invalid/mcp"\n', file: '/c.toml', format: 'codex', name: 'r' }),
      /\/c\.toml:2:7: server "r" is a remote/,
    );
    assert.throws(
      () => guardEntry({ text: 'mcpServers:\n  - name: y\n    command: |\n      node\n', file: '/c.yaml', format: 'continue', name: 'y' }),
      /\/c\.yaml:3:14: "command" of server "y" is not a one-line value/,
    );
    assert.throws(
      () =>
        guardEntry({
          text: '{ "mcp": { "o": { "type": "local", "command": ["node", "s.js"] } } }',
          file: '/p/opencode.json',
          format: 'opencode',
          name: 'o',
        }),
      /\/p\/opencode\.json:1:\d+: server "o" is an opencode entry; guard it by hand/,
    );
    assert.throws(
      () =>
        guardEntry({
          text: '{ "mcpServers": { "s": { "serverUrl": "https://example.invalid/mcp" } } }',
          file: '/p/.agents/mcp_config.json',
          format: 'antigravity',
          name: 's',
        }),
      /server "s" is a remote/,
    );
  });

  it('unguards an entry written by guard --print-config (npx launcher) and a global mcp-health', () => {
    const printed =
      '{ "mcpServers": { "gh": { "command": "npx", "args": ["-y", "mcp-health", "guard", "--name", "gh", "--", "node", "s.js"] } } }';
    assert.equal(
      unguardEntry({ text: printed, file: '/p/.mcp.json', format: 'mcp-json', name: 'gh' }),
      '{ "mcpServers": { "gh": { "command": "node", "args": ["s.js"] } } }',
    );
    const global = '{ "mcpServers": { "gh": { "command": "mcp-health", "args": ["guard", "--", "uvx", "tool"] } } }';
    assert.equal(
      unguardEntry({ text: global, file: '/p/.mcp.json', format: 'mcp-json', name: 'gh' }),
      '{ "mcpServers": { "gh": { "command": "uvx", "args": ["tool"] } } }',
    );
  });

  it('writes the same command line as guard --print-config prints for that server', () => {
    const [before] = parsed(vscodeText, vscodeFile, 'vscode');
    const [after] = parsed(guardEntry({ text: vscodeText, file: vscodeFile, format: 'vscode', name: 'everything' }), vscodeFile, 'vscode');
    const printed = guardedEntry(before!);
    assert.deepEqual([after!.command, after!.args], [printed.command, printed.args]);
  });

  it('Zed: the nested { "path", "args" } shape and the flat one', () => {
    const text =
      '{\n  "context_servers": {\n    "old": { "command": { "path": "node", "args": ["a.js"], "env": {} } },\n    "new": { "command": "uvx", "args": ["b"] }\n  }\n}\n';
    const old = roundTrip({ text, file: '/w/.zed/settings.json', format: 'zed', name: 'old' });
    assert.ok(
      old.includes('"command": { "path": "npx", "args": ["-y", "mcp-health", "guard", "--name", "old", "--", "node", "a.js"], "env": {} }'),
    );
    roundTrip({ text, file: '/w/.zed/settings.json', format: 'zed', name: 'new' });
  });

  it('YAML: a plain command with a flow indicator is not moved into a flow list unquoted', () => {
    const text = 'mcpServers:\n  - name: a\n    command: run,now\n';
    assert.throws(
      () => guardEntry({ text, file: '/c.yaml', format: 'continue', name: 'a' }),
      /\/c\.yaml:3:14: "command" of server "a" needs quotes/,
    );
    const block = 'mcpServers:\n  - name: a\n    command: run,now\n    args:\n      - x\n';
    roundTrip({ text: block, file: '/c.yaml', format: 'continue', name: 'a' });
  });

  it('Codex TOML keeps comments, literal strings and the dotted form', () => {
    const text =
      '# mine\n[mcp_servers]\ndocs.command = \'uvx\' # fetch\ndocs.env = { A = "1" }\n\n[mcp_servers.git]\ncommand = "git-mcp"\nargs = [\n  \'--repo\', # here\n  ".",\n]\n';
    const docs = roundTrip({ text, file: '/home/u/.codex/config.toml', format: 'codex', name: 'docs' });
    assert.ok(docs.includes(`docs.command = "npx"\ndocs.args = [ "-y", "mcp-health", "guard", "--name", "docs", "--", 'uvx' ] # fetch`));
    roundTrip({ text, file: '/home/u/.codex/config.toml', format: 'codex', name: 'git' });
  });

  it('Continue YAML keeps comments and the block list layout', () => {
    const text = 'name: T\nmcpServers:\n  # first\n  - name: a\n    command: uvx # tool\n    args:\n      - mcp-server-fetch # pinned\n';
    const guarded = roundTrip({ text, file: '/w/.continue/mcpServers/a.yaml', format: 'continue', name: 'a' });
    assert.ok(guarded.includes('    command: "npx" # tool\n    args:\n      - "-y"\n'));
    assert.ok(guarded.includes('      - "--"\n      - uvx\n      - mcp-server-fetch # pinned\n'));
  });
});

describe('changedSpan', () => {
  it('a key written twice: the entry clients run (the last) is guarded, the first stays byte for byte', () => {
    const text = '{ "mcpServers": {\n  "s": { "command": "old-one" },\n  "s": { "command": "node", "args": ["run.js"] }\n} }\n';
    const guarded = guardEntry({ text, file: '/p/.mcp.json', format: 'mcp-json', name: 's' });
    assert.ok(guarded.includes('  "s": { "command": "old-one" },\n'), guarded);
    const run = (JSON.parse(guarded) as { mcpServers: { s: { command: string; args: string[] } } }).mcpServers.s;
    assert.deepEqual([run.command, ...run.args], [...Object.values(guardPrefix('s')).flat(), 'node', 'run.js']);
    assert.equal(unguardEntry({ text: guarded, file: '/p/.mcp.json', format: 'mcp-json', name: 's' }), text);
    // Two list items of one name (Continue): which one runs is the client's business, so both lines are named.
    const list = 'mcpServers:\n  - name: d\n    command: a\n  - name: d\n    command: b\n';
    assert.throws(
      () => guardEntry({ text: list, file: '/c.yaml', format: 'continue', name: 'd' }),
      /\/c\.yaml:2:\d+: 2 servers are named "d" in this file \(lines 2 and 4\)/,
    );
  });

  it('a name that starts with a dash is written --name=-x, which the guard parses back as its name', () => {
    const text = '{ "mcpServers": { "-x": { "command": "node", "args": ["s.js"] } } }';
    const guarded = roundTrip({ text, file: '/p/.mcp.json', format: 'mcp-json', name: '-x' });
    const [server] = parsed(guarded, '/p/.mcp.json', 'mcp-json');
    assert.ok(server!.args!.includes('--name=-x'), JSON.stringify(server!.args));
    assert.equal(guardedName(server!), '-x');
    const options = parseGuardArgs(server!.args!.slice(server!.args!.indexOf('guard') + 1));
    assert.ok(options !== 'help' && !('printConfig' in options));
    assert.equal(options.name, '-x');
    assert.equal(options.target.kind === 'stdio' && options.target.command, 'node');
  });

  it('CRLF files keep CRLF on every line the rewrite adds (TOML and YAML)', () => {
    const toml = '[mcp_servers.t]\r\ncommand = "node"\r\n';
    const yamlMap = 'mcpServers:\r\n  - name: y\r\n    command: node\r\n';
    const yamlBlock = 'mcpServers:\r\n  - name: b\r\n    command: npx\r\n    args:\r\n      - pkg\r\n';
    for (const request of [
      { text: toml, file: '/c.toml', format: 'codex' as const, name: 't' },
      { text: yamlMap, file: '/c.yaml', format: 'continue' as const, name: 'y' },
      { text: yamlBlock, file: '/c.yaml', format: 'continue' as const, name: 'b' },
    ]) {
      const guarded = roundTrip(request);
      assert.doesNotMatch(guarded, /[^\r]\n/, JSON.stringify(guarded));
    }
  });

  it('Continue YAML: block args that start with -y (npx -y pkg) are guarded', () => {
    const text = 'mcpServers:\n  - name: files\n    command: npx\n    args:\n      - -y\n      - "@scope/server"\n';
    const guarded = roundTrip({ text, file: '/c.yaml', format: 'continue', name: 'files' });
    assert.ok(guarded.includes('      - "--"\n      - npx\n      - -y\n'), guarded);
  });

  it('replacing the span it names turns the old text into the new one', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (before, after) => {
        const span = changedSpan(before, after);
        assert.equal(before.slice(0, span.start) + span.text + before.slice(span.end), after);
        assert.ok(span.start <= span.end);
      }),
    );
    assert.deepEqual(changedSpan('{ "a": "node" }', '{ "a": "npx" }'), { start: 9, end: 12, text: 'px' });
  });
});
