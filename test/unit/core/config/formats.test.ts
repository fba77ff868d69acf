import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfigText } from '../../../../src/core/config/discover';
import type { ConfigFormat, ServerConfig } from '../../../../src/core/model';
import { brief, fixture, parseContext } from './helpers';

const FILE = '/work/proj/config';

function parse(relative: string, format: ConfigFormat, env: Record<string, string> = {}, scope: 'workspace' | 'user' = 'workspace') {
  const context = scope === 'workspace' ? parseContext({ env }) : parseContext({ env, scope, folder: undefined });
  return parseConfigText(fixture(relative), FILE, format, context);
}

function byName(servers: readonly ServerConfig[], name: string): ServerConfig {
  const server = servers.find((candidate) => candidate.name === name);
  assert.ok(server, `no server named ${name}`);
  return server;
}

void describe('VS Code mcp.json', () => {
  void it('reads JSONC with comments, trailing commas, inputs and type defaults', () => {
    const { servers, diagnostics, inputs } = parse('vscode/good.json', 'vscode');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.source.line, s.source.column]),
      [
        ['everything', 'stdio', 7, 5],
        ['remote', 'http', 13, 5],
        ['legacy', 'sse', 14, 5],
      ],
    );
    const everything = byName(servers, 'everything');
    assert.equal(everything.id, `${FILE}#everything`);
    assert.equal(everything.command, 'npx');
    assert.deepEqual(everything.args, ['-y', '@modelcontextprotocol/server-everything']);
    assert.deepEqual(everything.env, { PORT: '3001', API_KEY: '${input:api-key}' }, 'numbers become strings, null is dropped');
    assert.equal(everything.cwd, '/work/proj', 'cwd defaults to the workspace folder');
    assert.deepEqual(everything.missingInputs, ['api-key']);
    assert.equal(everything.secretValues, undefined, 'an unfilled input placeholder is not a secret');
    assert.deepEqual(everything.source, {
      file: FILE,
      line: 7,
      column: 5,
      format: 'vscode',
      scope: 'workspace',
      folder: '/work/proj',
      keys: { args: { line: 10, column: 7 }, env: { line: 11, column: 7 } },
    });
    assert.equal(byName(servers, 'remote').url, 'https://example.test/mcp');
    assert.deepEqual(inputs, [{ id: 'api-key', type: 'promptString', description: 'API key', password: true, file: FILE }]);
  });

  void it('reports every problem at its place and keeps the sound server', () => {
    const { servers, diagnostics } = parse('vscode/broken.json', 'vscode');
    assert.deepEqual(
      servers.map((s) => s.name),
      ['ok'],
    );
    assert.deepEqual(brief(diagnostics), [
      '10:3 error JSON syntax error: comma expected',
      '3:5 error [no-command] stdio server "no-command" has no "command"',
      '4:46 error [bad-args] "args" of server "bad-args" must be an array of strings, found a string',
      '5:41 error [bad-url] URL of server "bad-url" is not a valid URL',
      '6:27 error [bad-type] server "bad-type" has unknown type "websocket"; expected "stdio", "http", "sse"',
      '7:55 error [bad-env] env "DEBUG" of server "bad-env" must be a string, number or null, found a boolean',
    ]);
  });
});

void describe('VS Code settings.json "mcp"', () => {
  void it('reads mcp.servers among other settings', () => {
    const { servers, diagnostics } = parse('vscode-settings/good.json', 'vscode-settings');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.command, s.source.line, s.source.column]),
      [['memory', 'npx', 5, 7]],
    );
  });

  void it('rejects a servers list where a map is required', () => {
    const { servers, diagnostics } = parse('vscode-settings/broken.json', 'vscode-settings');
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), [
      '3:16 error "mcp.servers" must be an object mapping server names to definitions, found an array',
    ]);
  });
});

void describe('devcontainer.json customizations.vscode.mcp', () => {
  void it('reads servers nested in customizations', () => {
    const { servers, diagnostics } = parse('devcontainer/good.json', 'vscode');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.url, s.source.line, s.source.column]),
      [['fetch', 'http', 'http://localhost:3000/mcp', 8, 11]],
    );
  });

  void it('names a remote server without a URL', () => {
    const { servers, diagnostics } = parse('devcontainer/broken.json', 'vscode');
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), ['6:11 error [fetch] remote server "fetch" has no "url"']);
  });
});

void describe('.mcp.json', () => {
  void it('substitutes ${VAR} and ${VAR:-default} and leaves a bare $VAR literal', () => {
    const { servers, diagnostics } = parse('mcp-json/good.json', 'mcp-json', { GITHUB_TOKEN: 'ghp_secret' });
    assert.deepEqual(brief(diagnostics), []);
    const github = byName(servers, 'github');
    assert.deepEqual(github.args, ['-y', 'server-github', '--root', '/srv/default']);
    assert.deepEqual(github.env, { GITHUB_TOKEN: 'ghp_secret', LITERAL: '$HOME' });
    assert.deepEqual(github.secretValues, ['ghp_secret']);
    assert.equal(byName(servers, 'api').url, 'https://api.example.test/mcp');
    assert.equal(byName(servers, 'events').transport, 'sse');
  });

  void it('reports a truncated file and bad entries, keeping the good one', () => {
    const { servers, diagnostics } = parse('mcp-json/broken.json', 'mcp-json');
    assert.deepEqual(
      servers.map((s) => s.name),
      ['a'],
    );
    assert.deepEqual(brief(diagnostics), [
      '7:1 error JSON syntax error: property name expected',
      '7:1 error JSON syntax error: value expected',
      '7:1 error JSON syntax error: close brace expected',
      '7:1 error JSON syntax error: close brace expected',
      '4:5 error [b] server "b" has neither "command" nor "url"',
      '5:10 error [c] server "c" must be an object, found a string',
      '6:35 error [d] URL of server "d" must be http or https, found ftp',
    ]);
  });
});

void describe('~/.claude.json', () => {
  void it('reads the top level and the projects of open folders only', () => {
    const { servers, diagnostics } = parse('claude-code/good.json', 'claude-code', {}, 'user');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.source.scope, s.source.folder, s.cwd, s.source.line]),
      [
        ['global-tool', 'user', undefined, undefined, 4],
        ['local-db', 'user', '/work/proj', '/work/proj', 10],
      ],
    );
  });

  void it('reports wrong types in both places', () => {
    const { servers, diagnostics } = parse('claude-code/broken.json', 'claude-code', {}, 'user');
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), [
      '3:40 error [x] "command" of server "x" must be a string, found a number',
      '6:105 error [y] header "X-Id" of server "y" must be a string, found a number',
    ]);
  });
});

void describe('Cursor', () => {
  void it('resolves ${env:NAME}, ${userHome} and ${workspaceFolder}', () => {
    const { servers, diagnostics } = parse('cursor/good.json', 'cursor', { LINEAR_TOKEN: 'lin_123', CURSOR_KEY: 'ck_456' });
    assert.deepEqual(brief(diagnostics), []);
    const linear = byName(servers, 'linear');
    assert.equal(linear.transport, 'http');
    assert.deepEqual(linear.headers, { Authorization: 'Bearer lin_123' });
    assert.deepEqual(linear.secretValues, ['Bearer lin_123', 'lin_123']);
    const local = byName(servers, 'local');
    assert.equal(local.command, '/home/u/bin/tool');
    assert.deepEqual(local.args, ['/work/proj']);
    assert.deepEqual(local.env, { KEY: 'ck_456' });
  });

  void it('rejects a URL that is not a string', () => {
    const { diagnostics } = parse('cursor/broken.json', 'cursor');
    assert.deepEqual(brief(diagnostics), ['3:24 error [linear] "url" of server "linear" must be a string, found an array']);
  });
});

void describe('Claude Desktop', () => {
  void it('runs in the home folder and substitutes nothing', () => {
    const { servers, diagnostics } = parse('claude-desktop/good.json', 'claude-desktop', { HOME: '/home/u' }, 'user');
    assert.deepEqual(brief(diagnostics), []);
    const server = byName(servers, 'filesystem');
    assert.equal(server.cwd, '/home/u');
    assert.equal(server.args?.[2], '${HOME}/Desktop');
  });

  void it('reports a double comma and still reads the server before it', () => {
    const { servers, diagnostics } = parse('claude-desktop/broken.json', 'claude-desktop', {}, 'user');
    assert.deepEqual(
      servers.map((s) => s.name),
      ['filesystem'],
    );
    assert.deepEqual(brief(diagnostics), [
      '7:5 error JSON syntax error: property name expected',
      '7:5 error JSON syntax error: value expected',
    ]);
  });
});

void describe('Windsurf', () => {
  void it('reads serverUrl and disabled', () => {
    const { servers, diagnostics } = parse('windsurf/good.json', 'windsurf', { WS_KEY: 'wskey-1' }, 'user');
    assert.deepEqual(brief(diagnostics), []);
    const remote = byName(servers, 'remote');
    assert.equal(remote.url, 'https://windsurf.example.test/mcp');
    assert.deepEqual(remote.headers, { 'X-API-Key': 'wskey-1' });
    assert.equal(byName(servers, 'paused').disabled, true);
  });

  void it('names the missing serverUrl', () => {
    const { diagnostics } = parse('windsurf/broken.json', 'windsurf', {}, 'user');
    assert.deepEqual(brief(diagnostics), ['3:5 error [remote] server "remote" has neither "command" nor "serverUrl" or "url"']);
  });
});

void describe('Cline', () => {
  void it('maps streamableHttp, an untyped URL to SSE, and disabled', () => {
    const { servers, diagnostics } = parse('cline/good.json', 'cline', {}, 'user');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.disabled ?? false]),
      [
        ['weather', 'stdio', false],
        ['stream', 'http', true],
        ['old-sse', 'sse', false],
      ],
    );
  });

  void it("rejects Roo's spelling of the type", () => {
    const { diagnostics } = parse('cline/broken.json', 'cline', {}, 'user');
    assert.deepEqual(brief(diagnostics), [
      '3:25 error [stream] server "stream" has unknown type "streamable-http"; expected "stdio", "streamableHttp", "sse"',
    ]);
  });
});

void describe('Roo Code', () => {
  void it('maps streamable-http, resolves ${env:} and a relative cwd', () => {
    const { servers, diagnostics } = parse('roo/good.json', 'roo', { ROO_TOKEN: 'roo-token', ROO_ROOT: '/data' });
    assert.deepEqual(brief(diagnostics), []);
    const docs = byName(servers, 'docs');
    assert.equal(docs.transport, 'http');
    assert.deepEqual(docs.headers, { Authorization: 'Bearer roo-token' });
    const files = byName(servers, 'files');
    assert.equal(files.cwd, '/work/proj/tools');
    assert.deepEqual(files.env, { ROOT: '/data' });
    assert.equal(files.disabled, true);
  });

  void it("rejects Cline's spelling of the type", () => {
    const { diagnostics } = parse('roo/broken.json', 'roo');
    assert.deepEqual(brief(diagnostics), [
      '3:23 error [docs] server "docs" has unknown type "streamableHttp"; expected "stdio", "streamable-http", "sse"',
    ]);
  });
});

void describe('Gemini CLI', () => {
  void it('tells SSE (url) from Streamable HTTP (httpUrl) and substitutes $VAR and ${VAR}', () => {
    const { servers, diagnostics } = parse('gemini/good.json', 'gemini', { GEMINI_TOKEN: 'gem-tok', GEMINI_URL: 'https://g' });
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport]),
      [
        ['stdio-one', 'stdio'],
        ['sse-one', 'sse'],
        ['http-one', 'http'],
      ],
    );
    const stdio = byName(servers, 'stdio-one');
    assert.deepEqual(stdio.env, { TOKEN: 'gem-tok', URL: 'https://g' });
    assert.equal(stdio.cwd, '/work/proj/srv');
    assert.deepEqual(byName(servers, 'http-one').headers, { Authorization: 'Bearer gem-tok' });
  });

  void it('warns about an unset variable and leaves it literal', () => {
    const { servers, diagnostics } = parse('gemini/good.json', 'gemini', { GEMINI_TOKEN: 'gem-tok' });
    assert.equal(byName(servers, 'stdio-one').env?.URL, '${GEMINI_URL}');
    assert.deepEqual(brief(diagnostics), [
      '4:125 warning [stdio-one] server "stdio-one": environment variable GEMINI_URL is not set; left as written',
    ]);
  });

  void it('names a server with neither command nor URL', () => {
    const { diagnostics } = parse('gemini/broken.json', 'gemini');
    assert.deepEqual(brief(diagnostics), ['3:5 error [nothing] server "nothing" has neither "command" nor "httpUrl" or "url"']);
  });
});

void describe('Codex config.toml', () => {
  const env = { CODEX_PASSTHROUGH: 'through', CODEX_TOKEN: 'codex-tok', CODEX_API_KEY: 'codex-key' };

  void it('reads tables, env_vars, bearer_token_env_var, http_headers, env_http_headers and enabled', () => {
    const { servers, diagnostics } = parse('codex/good.toml', 'codex', env, 'user');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.source.line, s.source.column, s.disabled ?? false]),
      [
        ['docs', 'stdio', 4, 1, false],
        ['remote api', 'http', 11, 1, false],
        ['off', 'stdio', 17, 1, true],
      ],
    );
    const docs = byName(servers, 'docs');
    assert.deepEqual(docs.env, { LOG_LEVEL: 'info', CODEX_PASSTHROUGH: 'through' });
    assert.equal(docs.cwd, '/srv/docs');
    const remote = byName(servers, 'remote api');
    assert.deepEqual(remote.headers, { 'X-Team': 'core', Authorization: 'Bearer codex-tok', 'X-Api-Key': 'codex-key' });
    assert.ok(remote.secretValues?.includes('codex-tok'));
    assert.ok(remote.secretValues?.includes('codex-key'));
  });

  void it('warns when the variables it names are not set', () => {
    const { servers, diagnostics } = parse('codex/good.toml', 'codex', {}, 'user');
    assert.equal(byName(servers, 'remote api').headers?.Authorization, undefined);
    assert.deepEqual(brief(diagnostics), [
      '8:12 warning [docs] env_vars of server "docs" names CODEX_PASSTHROUGH, which is not set',
      '13:24 warning [remote api] bearer_token_env_var of server "remote api" names CODEX_TOKEN, which is not set',
      '15:36 warning [remote api] env_http_headers "X-Api-Key" of server "remote api" names CODEX_API_KEY, which is not set',
    ]);
  });

  void it('gives a TOML syntax error its line and column', () => {
    const { servers, diagnostics } = parse('codex/broken.toml', 'codex', {}, 'user');
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), ['4:1 error TOML error: expected comma or end of structure']);
  });

  void it('points type errors at the offending value', () => {
    const { diagnostics } = parse('codex/broken-types.toml', 'codex', {}, 'user');
    assert.deepEqual(brief(diagnostics), [
      '3:8 error [docs] "args" of server "docs" must be an array of strings, found a string',
      '5:1 error [remote] server "remote" has neither "command" nor "url"',
    ]);
  });
});

void describe('Continue mcpServers blocks', () => {
  void it('reads a YAML block with a server list', () => {
    const { servers, diagnostics } = parseConfigText(
      fixture('continue/good.yaml'),
      '/work/proj/.continue/mcpServers/good.yaml',
      'continue',
      parseContext(),
    );
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.source.line, s.source.column]),
      [
        ['SQLite', 'stdio', 5, 5],
        ['Remote', 'http', 13, 5],
      ],
    );
    assert.deepEqual(byName(servers, 'SQLite').args, ['-y', 'mcp-sqlite', '/tmp/db.sqlite']);
    assert.deepEqual(byName(servers, 'SQLite').env, { RETRIES: '3' });
  });

  void it('reads a JSON file holding one server object', () => {
    const { servers, diagnostics } = parseConfigText(
      fixture('continue/single.json'),
      '/work/proj/.continue/mcpServers/single.json',
      'continue',
      parseContext(),
    );
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.url]),
      [['Browser', 'sse', 'https://continue.example.test/sse']],
    );
  });

  void it('gives a YAML syntax error its position', () => {
    const { servers, diagnostics } = parseConfigText(fixture('continue/broken.yaml'), '/x/broken.yaml', 'continue', parseContext());
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), [
      '5:3 error YAML error: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });

  void it('names an entry without a name and an unknown type', () => {
    const { diagnostics } = parseConfigText(fixture('continue/broken-types.yaml'), '/x/broken-types.yaml', 'continue', parseContext());
    assert.deepEqual(brief(diagnostics), [
      '2:5 error server entry 1 of "mcpServers" has no "name"',
      '4:11 error [Remote] server "Remote" has unknown type "websocket"; expected "stdio", "sse", "streamable-http", "streamableHttp", "http"',
    ]);
  });
});

void describe('Zed context_servers', () => {
  void it('reads the current and the older command shape, and skips extension-provided servers', () => {
    const { servers, diagnostics } = parse('zed/good.json', 'zed', {}, 'user');
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.command ?? s.url]),
      [
        ['new-shape', 'stdio', 'npx'],
        ['old-shape', 'stdio', '/usr/bin/old-mcp'],
        ['remote', 'http', 'https://zed.example.test/mcp'],
      ],
    );
    assert.deepEqual(byName(servers, 'old-shape').args, ['--stdio']);
    assert.deepEqual(byName(servers, 'old-shape').env, { A: '1' });
    assert.deepEqual(brief(diagnostics), [
      '7:5 warning context server "from-extension" is provided by a Zed extension and is not monitored',
    ]);
  });

  void it('names a nested command without a path', () => {
    const { diagnostics } = parse('zed/broken.json', 'zed', {}, 'user');
    assert.deepEqual(brief(diagnostics), ['3:31 error [old-shape] "command" of server "old-shape" has no "path"']);
  });
});

void describe('Kiro .kiro/settings/mcp.json', () => {
  void it('reads stdio and remote servers, ${VAR} and disabled', () => {
    const { servers, diagnostics } = parse('kiro/good.json', 'kiro', { KIRO_BRAVE_KEY: 'brave-secret', KIRO_API_TOKEN: 'kiro-tok' });
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.source.line, s.source.column, s.disabled ?? false]),
      [
        ['web-search', 'stdio', 3, 5, false],
        ['api-server', 'http', 10, 5, false],
        ['resting', 'stdio', 14, 5, true],
      ],
    );
    const search = byName(servers, 'web-search');
    assert.deepEqual(search.args, ['-y', '@modelcontextprotocol/server-brave-search']);
    assert.deepEqual(search.env, { BRAVE_API_KEY: 'brave-secret' });
    assert.ok(search.secretValues?.includes('brave-secret'), 'a key-named env value is a secret');
    assert.deepEqual(search.source.keys, { args: { line: 5, column: 7 }, env: { line: 6, column: 7 } });
    assert.equal(byName(servers, 'api-server').url, 'https://kiro.example.test/mcp');
    assert.equal(byName(servers, 'api-server').headers?.Authorization, 'Bearer kiro-tok');
  });

  void it('names what is wrong, with its place', () => {
    const { servers, diagnostics } = parse('kiro/broken.json', 'kiro');
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), [
      '3:5 error [nothing] server "nothing" has neither "command" nor "url"',
      '4:44 error [bad-env] "env" of server "bad-env" must be an object, found an array',
    ]);
  });
});

void describe('opencode.json "mcp"', () => {
  void it('v1: local servers with a command array and "environment", remote with headers, {env:X}, enabled', () => {
    const { servers, diagnostics } = parse('opencode/v1.jsonc', 'opencode', { OPENCODE_API_KEY: 'oc-key', JIRA_TOKEN: 'jira-tok' });
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.source.line, s.source.column, s.disabled ?? false]),
      [
        ['everything', 'stdio', 5, 5, false],
        ['jira', 'http', 11, 5, false],
        ['parked', 'stdio', 17, 5, true],
      ],
    );
    const everything = byName(servers, 'everything');
    assert.equal(everything.command, 'npx');
    assert.deepEqual(everything.args, ['-y', '@modelcontextprotocol/server-everything']);
    assert.deepEqual(everything.env, { API_KEY: 'oc-key' });
    assert.ok(everything.secretValues?.includes('oc-key'));
    assert.deepEqual(everything.source.keys, { args: { line: 7, column: 7 }, env: { line: 8, column: 7 } }, 'args are in "command"');
    assert.equal(byName(servers, 'jira').headers?.Authorization, 'Bearer jira-tok');
  });

  void it('an unset {env:X} reads as empty, as opencode does, with a warning', () => {
    const { servers, diagnostics } = parse('opencode/v1.jsonc', 'opencode');
    assert.deepEqual(byName(servers, 'everything').env, { API_KEY: '' });
    assert.deepEqual(brief(diagnostics), [
      '8:35 warning [everything] server "everything": environment variable OPENCODE_API_KEY is not set; it reads as empty',
      '14:37 warning [jira] server "jira": environment variable JIRA_TOKEN is not set; it reads as empty',
    ]);
  });

  void it('v2: servers under "mcp.servers", "disabled"', () => {
    const { servers, diagnostics } = parse('opencode/v2.jsonc', 'opencode');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.command ?? s.url, s.source.line, s.disabled ?? false]),
      [
        ['my-server', 'stdio', 'npx', 5, false],
        ['off', 'stdio', 'npx', 9, true],
        ['context7', 'http', 'https://context7.example.test/mcp', 10, false],
      ],
    );
  });

  void it('refuses an empty command, a type it does not know and a remote server without url', () => {
    const { servers, diagnostics } = parse('opencode/broken.jsonc', 'opencode');
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), [
      '3:44 error [empty] "command" of server "empty" is an empty array',
      '4:29 error [wrong-type] server "wrong-type" has unknown type "stdio"; expected "local", "remote"',
      '5:5 error [no-url] remote server "no-url" has no "url"',
    ]);
  });
});

void describe('Copilot CLI mcp-config.json', () => {
  void it('reads type local, stdio, http and sse', () => {
    const { servers, diagnostics } = parse('copilot-cli/good.json', 'copilot-cli', { COPILOT_TEST_TOKEN: 'cp-tok' }, 'user');
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.source.line, s.source.column]),
      [
        ['playwright', 'stdio', 3, 5],
        ['azure', 'stdio', 10, 5],
        ['github', 'http', 11, 5],
        ['docs', 'sse', 17, 5],
      ],
    );
    assert.deepEqual(byName(servers, 'playwright').env, { TOKEN: 'cp-tok' });
    assert.equal(byName(servers, 'github').headers?.Authorization, 'Bearer cp-tok');
  });

  void it('refuses a type it does not know', () => {
    const { diagnostics } = parse('copilot-cli/broken.json', 'copilot-cli', {}, 'user');
    assert.deepEqual(brief(diagnostics), [
      '3:22 error [odd] server "odd" has unknown type "streamable"; expected "local", "stdio", "http", "sse"',
    ]);
  });
});

void describe('Antigravity CLI mcp_config.json', () => {
  void it('reads command servers and serverUrl servers, $VAR in headers', () => {
    const { servers, diagnostics } = parse('antigravity/good.json', 'antigravity', { GOOGLE_CLOUD_PROJECT: 'my-project' });
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.name, s.transport, s.command ?? s.url, s.source.line]),
      [
        ['firebase', 'stdio', 'npx', 3],
        ['google-developer-knowledge', 'http', 'https://knowledge.example.test/mcp', 7],
      ],
    );
    assert.equal(byName(servers, 'google-developer-knowledge').headers?.['X-goog-user-project'], 'my-project');
  });

  void it('a Gemini CLI entry copied without switching to serverUrl is refused, as Antigravity CLI would', () => {
    const { servers, diagnostics } = parse('antigravity/broken.json', 'antigravity');
    assert.equal(servers.length, 0);
    assert.deepEqual(brief(diagnostics), ['3:5 error [migrated-as-is] server "migrated-as-is" has neither "command" nor "serverUrl"']);
  });
});
