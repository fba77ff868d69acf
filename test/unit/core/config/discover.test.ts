import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { candidateFiles, detectFormat, discover } from '../../../../src/core/config/discover';
import { brief, discoveryOptions, fixture, memoryFs } from './helpers';

const HOME = '/home/u';
const PROJ = '/work/proj';

void describe('candidateFiles', () => {
  void it('lists every workspace and user location on Linux', () => {
    const files = candidateFiles(discoveryOptions({ env: {} })).map((c) => `${c.scope} ${c.format} ${c.file}${c.dir ? '/' : ''}`);
    assert.deepEqual(files, [
      `workspace vscode ${PROJ}/.vscode/mcp.json`,
      `workspace vscode-settings ${PROJ}/.vscode/settings.json`,
      `workspace vscode ${PROJ}/.devcontainer/devcontainer.json`,
      `workspace vscode ${PROJ}/.devcontainer.json`,
      `workspace mcp-json ${PROJ}/.mcp.json`,
      `workspace cursor ${PROJ}/.cursor/mcp.json`,
      `workspace roo ${PROJ}/.roo/mcp.json`,
      `workspace gemini ${PROJ}/.gemini/settings.json`,
      `workspace codex ${PROJ}/.codex/config.toml`,
      `workspace continue ${PROJ}/.continue/mcpServers/`,
      `workspace zed ${PROJ}/.zed/settings.json`,
      `workspace kiro ${PROJ}/.kiro/settings/mcp.json`,
      `workspace opencode ${PROJ}/opencode.json`,
      `workspace opencode ${PROJ}/.opencode/opencode.json`,
      `workspace opencode ${PROJ}/opencode.jsonc`,
      `workspace opencode ${PROJ}/.opencode/opencode.jsonc`,
      `workspace antigravity ${PROJ}/.agents/mcp_config.json`,
      `user vscode ${HOME}/.config/Code/User/mcp.json`,
      `user vscode-settings ${HOME}/.config/Code/User/settings.json`,
      `user claude-code ${HOME}/.claude.json`,
      `user cursor ${HOME}/.cursor/mcp.json`,
      `user claude-desktop ${HOME}/.config/Claude/claude_desktop_config.json`,
      `user windsurf ${HOME}/.codeium/windsurf/mcp_config.json`,
      `user cline ${HOME}/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`,
      `user roo ${HOME}/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json`,
      `user gemini ${HOME}/.gemini/settings.json`,
      `user codex ${HOME}/.codex/config.toml`,
      `user continue ${HOME}/.continue/mcpServers/`,
      `user zed ${HOME}/.config/zed/settings.json`,
      `user kiro ${HOME}/.kiro/settings/mcp.json`,
      `user opencode ${HOME}/.config/opencode/opencode.json`,
      `user opencode ${HOME}/.config/opencode/opencode.jsonc`,
      `user copilot-cli ${HOME}/.copilot/mcp-config.json`,
      `user antigravity ${HOME}/.gemini/antigravity-cli/mcp_config.json`,
    ]);
  });

  void it('follows COPILOT_HOME, OPENCODE_CONFIG, XDG_CONFIG_HOME for opencode and VS Code portable mode', () => {
    const files = candidateFiles(
      discoveryOptions({
        workspaceFolders: [],
        env: { COPILOT_HOME: '/cp', OPENCODE_CONFIG: '/team/opencode.json', XDG_CONFIG_HOME: '/xdg', VSCODE_PORTABLE: '/opt/VSCode/data' },
      }),
    ).map((c) => `${c.format} ${c.file}`);
    assert.ok(files.includes('copilot-cli /cp/mcp-config.json'), 'COPILOT_HOME replaces ~/.copilot');
    assert.ok(!files.includes(`copilot-cli ${HOME}/.copilot/mcp-config.json`));
    assert.ok(files.includes('opencode /xdg/opencode/opencode.json'));
    assert.ok(files.includes('opencode /team/opencode.json'), 'the file OPENCODE_CONFIG names');
    assert.ok(
      files.includes('vscode /opt/VSCode/data/user-data/User/mcp.json'),
      'a portable VS Code keeps its user folder in data/user-data/User',
    );
    assert.ok(
      files.includes('cline /opt/VSCode/data/user-data/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json'),
    );
    const win = candidateFiles(
      discoveryOptions({ platform: 'win32', userHome: 'C:\\Users\\u', workspaceFolders: ['C:\\src\\app'], env: {} }),
    ).map((c) => c.file);
    assert.ok(win.includes('C:\\src\\app\\.kiro\\settings\\mcp.json'));
    assert.ok(win.includes('C:\\Users\\u\\.copilot\\mcp-config.json'));
    assert.ok(win.includes('C:\\Users\\u\\.config\\opencode\\opencode.json'), 'opencode uses ~/.config on Windows too');
    assert.ok(win.includes('C:\\Users\\u\\.gemini\\antigravity-cli\\mcp_config.json'));
  });

  void it('uses the per-OS user folders on macOS and Windows', () => {
    const mac = candidateFiles(discoveryOptions({ platform: 'darwin', userHome: '/Users/u', workspaceFolders: [] }));
    assert.ok(mac.some((c) => c.file === '/Users/u/Library/Application Support/Code/User/mcp.json'));
    assert.ok(mac.some((c) => c.file === '/Users/u/Library/Application Support/Claude/claude_desktop_config.json'));
    const win = candidateFiles(
      discoveryOptions({
        platform: 'win32',
        userHome: 'C:\\Users\\u',
        workspaceFolders: ['C:\\src\\app'],
        env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' },
      }),
    );
    const files = win.map((c) => c.file);
    assert.ok(files.includes('C:\\src\\app\\.vscode\\mcp.json'));
    assert.ok(files.includes('C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json'));
    assert.ok(files.includes('C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json'));
    assert.ok(files.includes('C:\\Users\\u\\AppData\\Roaming\\Zed\\settings.json'));
  });

  void it('honours explicit user folders, includeUser=false and disabled sources', () => {
    const custom = candidateFiles(discoveryOptions({ vscodeUserDir: '/vs', globalStorageDir: '/gs', workspaceFolders: [] }));
    assert.ok(custom.some((c) => c.file === '/vs/mcp.json'));
    assert.ok(custom.some((c) => c.file === '/gs/saoudrizwan.claude-dev/settings/cline_mcp_settings.json'));
    assert.ok(candidateFiles(discoveryOptions({ includeUser: false })).every((c) => c.scope === 'workspace'));
    const noCursor = candidateFiles(discoveryOptions({ sources: { cursor: false, 'vscode-settings': false } }));
    assert.ok(noCursor.every((c) => c.format !== 'cursor' && c.format !== 'vscode-settings'));
    assert.ok(noCursor.some((c) => c.format === 'vscode'));
  });

  void it('lists a file once when the home folder is also the workspace', () => {
    const files = candidateFiles(discoveryOptions({ workspaceFolders: [HOME] })).map((c) => c.file);
    assert.equal(files.filter((file) => file === `${HOME}/.cursor/mcp.json`).length, 1);
  });
});

void describe('detectFormat', () => {
  void it('tells formats by name', () => {
    const cases: Array<[string, string]> = [
      ['/p/.vscode/mcp.json', 'vscode'],
      ['/p/.vscode/settings.json', 'vscode-settings'],
      ['/p/.devcontainer/devcontainer.json', 'vscode'],
      ['/p/.mcp.json', 'mcp-json'],
      ['/h/.claude.json', 'claude-code'],
      ['/p/.cursor/mcp.json', 'cursor'],
      ['/x/claude_desktop_config.json', 'claude-desktop'],
      ['/h/.codeium/windsurf/mcp_config.json', 'windsurf'],
      ['/g/saoudrizwan.claude-dev/settings/cline_mcp_settings.json', 'cline'],
      ['/p/.roo/mcp.json', 'roo'],
      ['/p/.gemini/settings.json', 'gemini'],
      ['/p/.codex/config.toml', 'codex'],
      ['/p/.continue/mcpServers/a.yaml', 'continue'],
      ['/h/.config/zed/settings.json', 'zed'],
      ['C:\\p\\.cursor\\mcp.json', 'cursor'],
      ['/p/.kiro/settings/mcp.json', 'kiro'],
      ['/p/opencode.json', 'opencode'],
      ['/h/.config/opencode/opencode.jsonc', 'opencode'],
      ['/h/.copilot/mcp-config.json', 'copilot-cli'],
      ['/p/.agents/mcp_config.json', 'antigravity'],
      ['/h/.gemini/antigravity-cli/mcp_config.json', 'antigravity'],
    ];
    for (const [file, format] of cases) assert.equal(detectFormat(file, ''), format, file);
  });

  void it('tells formats of an arbitrary file name by content', () => {
    const cases: Array<[string, string]> = [
      ['{"servers": {}}', 'vscode'],
      ['{"mcp": {"servers": {}}}', 'vscode-settings'],
      ['{"mcpServers": {"a": {"serverUrl": "x"}}}', 'windsurf'],
      ['{"mcpServers": {"a": {"httpUrl": "x"}}}', 'gemini'],
      ['{"mcpServers": {"a": {"type": "streamableHttp"}}}', 'cline'],
      ['{"mcpServers": {"a": {"type": "streamable-http"}}}', 'roo'],
      ['{"mcpServers": {}, "projects": {}}', 'claude-code'],
      ['{"mcpServers": {"a": {"command": "x"}}}', 'mcp-json'],
      ['{"context_servers": {}}', 'zed'],
      ['[mcp_servers.a]\ncommand = "x"', 'codex'],
      ['- name: a\n  command: x', 'continue'],
      ['{"$schema": "https://opencode.ai/config.json", "mcp": {}}', 'opencode'],
      ['{"mcp": {"a": {"type": "local", "command": ["x"]}}}', 'opencode'],
      ['{"mcpServers": {"a": {"type": "local", "command": "x"}}}', 'copilot-cli'],
    ];
    for (const [text, format] of cases) assert.equal(detectFormat('/tmp/servers.conf', text), format, text);
  });
});

void describe('discover', () => {
  void it('reads every format from one workspace and the user files, each server with its own source', async () => {
    const fs = memoryFs({
      [`${PROJ}/.vscode/mcp.json`]: fixture('vscode/good.json'),
      [`${PROJ}/.vscode/settings.json`]: fixture('vscode-settings/good.json'),
      [`${PROJ}/.devcontainer/devcontainer.json`]: fixture('devcontainer/good.json'),
      [`${PROJ}/.mcp.json`]: fixture('mcp-json/good.json'),
      [`${PROJ}/.cursor/mcp.json`]: fixture('cursor/good.json'),
      [`${PROJ}/.roo/mcp.json`]: fixture('roo/good.json'),
      [`${PROJ}/.gemini/settings.json`]: fixture('gemini/good.json'),
      [`${PROJ}/.codex/config.toml`]: fixture('codex/good.toml'),
      [`${PROJ}/.continue/mcpServers/good.yaml`]: fixture('continue/good.yaml'),
      [`${PROJ}/.continue/mcpServers/single.json`]: fixture('continue/single.json'),
      [`${PROJ}/.continue/mcpServers/notes.txt`]: 'ignored',
      [`${PROJ}/.zed/settings.json`]: fixture('zed/good.json'),
      [`${HOME}/.claude.json`]: fixture('claude-code/good.json'),
      [`${HOME}/.config/Claude/claude_desktop_config.json`]: fixture('claude-desktop/good.json'),
      [`${HOME}/.codeium/windsurf/mcp_config.json`]: fixture('windsurf/good.json'),
      [`${HOME}/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`]: fixture('cline/good.json'),
    });
    const result = await discover(discoveryOptions(), fs);
    const formats = new Set(result.servers.map((s) => s.source.format));
    assert.deepEqual([...formats].sort(), [
      'claude-code',
      'claude-desktop',
      'cline',
      'codex',
      'continue',
      'cursor',
      'gemini',
      'mcp-json',
      'roo',
      'vscode',
      'vscode-settings',
      'windsurf',
      'zed',
    ]);
    assert.equal(result.servers.length, 32);
    assert.equal(new Set(result.servers.map((s) => s.id)).size, result.servers.length, 'ids are unique');
    assert.deepEqual(
      result.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const existing = result.sources.filter((s) => s.exists);
    assert.equal(existing.length, 15, 'every config file written above, notes.txt aside');
    assert.equal(
      existing.reduce((sum, s) => sum + s.serverCount, 0),
      result.servers.length,
    );
    assert.ok(result.sources.some((s) => !s.exists && s.file === `${HOME}/.cursor/mcp.json`));
    assert.deepEqual(
      result.inputs.map((i) => i.id),
      ['api-key'],
    );
    assert.ok(!fs.reads.includes(`${PROJ}/.continue/mcpServers/notes.txt`));
  });

  void it('reads the Kiro, opencode, Copilot CLI and Antigravity CLI files where those clients keep them', async () => {
    const fs = memoryFs({
      [`${PROJ}/.kiro/settings/mcp.json`]: fixture('kiro/good.json'),
      [`${PROJ}/opencode.jsonc`]: fixture('opencode/v1.jsonc'),
      [`${PROJ}/.agents/mcp_config.json`]: fixture('antigravity/good.json'),
      [`${HOME}/.kiro/settings/mcp.json`]: '{"mcpServers": {"user-kiro": {"command": "k"}}}',
      [`${HOME}/.config/opencode/opencode.json`]: fixture('opencode/v2.jsonc'),
      [`${HOME}/.copilot/mcp-config.json`]: fixture('copilot-cli/good.json'),
      [`${HOME}/.gemini/antigravity-cli/mcp_config.json`]: '{"mcpServers": {"user-agy": {"serverUrl": "https://agy.example.test/mcp"}}}',
    });
    const result = await discover(discoveryOptions(), fs);
    assert.deepEqual(
      result.diagnostics.filter((d) => d.severity === 'error'),
      [],
    );
    const found = result.servers.map((s) => `${s.source.scope} ${s.source.format} ${s.name}:${s.source.line}`);
    assert.deepEqual(found, [
      'workspace kiro web-search:3',
      'workspace kiro api-server:10',
      'workspace kiro resting:14',
      'workspace opencode everything:5',
      'workspace opencode jira:11',
      'workspace opencode parked:17',
      'workspace antigravity firebase:3',
      'workspace antigravity google-developer-knowledge:7',
      'user kiro user-kiro:1',
      'user opencode my-server:5',
      'user opencode off:9',
      'user opencode context7:10',
      'user copilot-cli playwright:3',
      'user copilot-cli azure:10',
      'user copilot-cli github:11',
      'user copilot-cli docs:17',
      'user antigravity user-agy:1',
    ]);
    assert.ok(result.servers.filter((s) => s.source.scope === 'workspace').every((s) => s.source.folder === PROJ));
  });

  void it('an explicit Kiro, opencode or Antigravity project file belongs to its project folder', async () => {
    const fs = memoryFs({
      '/other/a/.kiro/settings/mcp.json': '{"mcpServers": {"k": {"command": "k"}}}',
      '/other/b/opencode.json': '{"mcp": {"o": {"type": "local", "command": ["o"]}}}',
      '/other/c/.agents/mcp_config.json': '{"mcpServers": {"g": {"command": "g"}}}',
      '/other/d/.opencode/opencode.jsonc': '{"mcp": {"p": {"type": "local", "command": ["p"]}}}',
    });
    const files = [
      '/other/a/.kiro/settings/mcp.json',
      '/other/b/opencode.json',
      '/other/c/.agents/mcp_config.json',
      '/other/d/.opencode/opencode.jsonc',
    ];
    const { servers } = await discover(discoveryOptions({ workspaceFolders: [], configFiles: files }), fs);
    assert.deepEqual(
      servers.map((s) => [s.name, s.source.format, s.source.scope, s.source.folder]),
      [
        ['k', 'kiro', 'workspace', '/other/a'],
        ['o', 'opencode', 'workspace', '/other/b'],
        ['g', 'antigravity', 'workspace', '/other/c'],
        ['p', 'opencode', 'workspace', '/other/d'],
      ],
    );
  });

  void it('keeps the same name in two files as two servers, and numbers repeats within one file', async () => {
    const fs = memoryFs({
      [`${PROJ}/.mcp.json`]: '{"mcpServers": {"dup": {"command": "a"}, "dup": {"command": "b"}}}',
      [`${PROJ}/.cursor/mcp.json`]: '{"mcpServers": {"dup": {"command": "c"}}}',
    });
    const { servers } = await discover(discoveryOptions({ includeUser: false }), fs);
    assert.deepEqual(
      servers.map((s) => [s.id, s.command]),
      [
        [`${PROJ}/.mcp.json#dup`, 'a'],
        [`${PROJ}/.mcp.json#dup#2`, 'b'],
        [`${PROJ}/.cursor/mcp.json#dup`, 'c'],
      ],
    );
  });

  void it('reads only the explicit files when configFiles is given, telling the format by content', async () => {
    const fs = memoryFs({
      '/cfg/team-servers.json': '{"mcpServers": {"w": {"serverUrl": "https://w.example.test/mcp"}}}',
      '/cfg/servers.toml': '[mcp_servers.t]\ncommand = "t"\n',
      [`${PROJ}/.vscode/mcp.json`]: '{"servers": {"never": {"command": "x"}}}',
    });
    const result = await discover(discoveryOptions({ configFiles: ['/cfg/team-servers.json', '/cfg/servers.toml'] }), fs);
    assert.deepEqual(
      result.servers.map((s) => [s.name, s.source.format, s.source.scope]),
      [
        ['w', 'windsurf', 'user'],
        ['t', 'codex', 'user'],
      ],
    );
    assert.deepEqual(fs.reads, ['/cfg/team-servers.json', '/cfg/servers.toml']);
  });

  void it('treats an explicit project file as belonging to its project folder', async () => {
    const fs = memoryFs({ '/other/app/.vscode/mcp.json': '{"servers": {"s": {"command": "${workspaceFolder}/bin/s"}}}' });
    const { servers } = await discover(discoveryOptions({ workspaceFolders: [], configFiles: ['/other/app/.vscode/mcp.json'] }), fs);
    assert.deepEqual([servers[0].command, servers[0].cwd, servers[0].source.scope], ['/other/app/bin/s', '/other/app', 'workspace']);
  });

  void it('does not read user files when includeUser is false, nor turned-off formats', async () => {
    const fs = memoryFs({
      [`${HOME}/.cursor/mcp.json`]: '{"mcpServers": {"u": {"command": "u"}}}',
      [`${PROJ}/.cursor/mcp.json`]: '{"mcpServers": {"c": {"command": "c"}}}',
      [`${PROJ}/.mcp.json`]: '{"mcpServers": {"m": {"command": "m"}}}',
    });
    const result = await discover(discoveryOptions({ includeUser: false, sources: { cursor: false } }), fs);
    assert.deepEqual(
      result.servers.map((s) => s.name),
      ['m'],
    );
    assert.ok(fs.reads.every((path) => !path.startsWith(HOME) && !path.includes('.cursor')));
  });

  void it('reads every folder of a multi-root workspace, each with its own ${workspaceFolder}', async () => {
    const fs = memoryFs({
      '/ws/a/.vscode/mcp.json': '{"servers": {"s": {"command": "${workspaceFolder}/run"}}}',
      '/ws/b/.vscode/mcp.json': '{"servers": {"s": {"command": "${workspaceFolderBasename}"}}}',
      [`${HOME}/.claude.json`]: '{"projects": {"/ws/b": {"mcpServers": {"p": {"command": "p"}}}}}',
    });
    const { servers, diagnostics } = await discover(discoveryOptions({ workspaceFolders: ['/ws/a', '/ws/b'] }), fs);
    assert.deepEqual(brief(diagnostics), []);
    assert.deepEqual(
      servers.map((s) => [s.id, s.command, s.cwd, s.source.folder]),
      [
        ['/ws/a/.vscode/mcp.json#s', '/ws/a/run', '/ws/a', '/ws/a'],
        ['/ws/b/.vscode/mcp.json#s', 'b', '/ws/b', '/ws/b'],
        [`${HOME}/.claude.json#p`, 'p', '/ws/b', '/ws/b'],
      ],
    );
  });

  void it('turns read failures into diagnostics at line 1 and carries on', async () => {
    const fs = memoryFs({
      [`${PROJ}/.vscode/mcp.json`]: new Error('EACCES: permission denied'),
      [`${PROJ}/.mcp.json`]: '{"mcpServers": {"ok": {"command": "ok"}}}',
    });
    const failingDir = { ...fs, readDir: () => Promise.reject(new Error('EIO')) };
    const result = await discover(discoveryOptions({ includeUser: false }), failingDir);
    assert.deepEqual(
      result.servers.map((s) => s.name),
      ['ok'],
    );
    assert.deepEqual(
      result.diagnostics.map((d) => [d.file, d.line, d.column, d.message]),
      [
        [`${PROJ}/.vscode/mcp.json`, 1, 1, 'cannot read: EACCES: permission denied'],
        [`${PROJ}/.continue/mcpServers`, 1, 1, 'cannot read folder: EIO'],
      ],
    );
    const unreadable = result.sources.find((s) => s.file === `${PROJ}/.vscode/mcp.json`);
    assert.deepEqual([unreadable?.exists, unreadable?.serverCount], [true, 0]);
  });

  void it('never throws, even when the file system misbehaves synchronously', async () => {
    const hostile = {
      readFile: (): Promise<string | undefined> => {
        throw new TypeError('boom');
      },
      readDir: (): Promise<string[] | undefined> => {
        throw new TypeError('boom');
      },
    };
    const result = await discover(discoveryOptions(), hostile);
    assert.equal(result.servers.length, 0);
    assert.ok(result.diagnostics.length > 0);
    assert.ok(result.diagnostics.every((d) => d.line === 1 && d.column === 1 && d.message.includes('boom')));
  });

  void it('parses a file of 10,000 servers', async () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => `"s${i}": {"command": "node", "args": ["server-${i}.js"]}`);
    const fs = memoryFs({ [`${PROJ}/.mcp.json`]: `{"mcpServers": {${entries.join(',\n')}}}` });
    const { servers, diagnostics } = await discover(discoveryOptions({ includeUser: false }), fs);
    assert.equal(servers.length, 10_000);
    assert.equal(diagnostics.length, 0);
    assert.equal(servers[9_999].source.line, 10_000);
  });

  void it('refuses a text over the size limit instead of parsing it', async () => {
    const fs = memoryFs({ [`${PROJ}/.mcp.json`]: ' '.repeat(20 * 1024 * 1024 + 1) });
    const { diagnostics } = await discover(discoveryOptions({ includeUser: false }), fs);
    assert.deepEqual(brief(diagnostics), ['1:1 error file is larger than 20 MB; not read']);
  });
});
