import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigFormat, ConfigScope, ServerConfig } from '../../../src/core/model';
import { detailRows } from '../../../src/present/details';
import { describeState, healthOf } from '../../../src/present/states';
import { parseChatMcpSettings, vscodeWontStart, type ChatMcpSettings } from '../../../src/present/vscodeStart';
import { serverConfig } from '../../helpers/serverConfig';
import { status } from './fixtures';

function config(file: string, format: ConfigFormat, scope: ConfigScope = 'workspace'): ServerConfig {
  return serverConfig('srv', {
    source: { file, format, scope, line: 1, column: 1, folder: scope === 'workspace' ? '/work/a' : undefined },
  });
}

const workspaceMcp = config('/work/a/.vscode/mcp.json', 'vscode');
const userMcp = config('/home/u/.config/Code/User/mcp.json', 'vscode', 'user');
const settingsJson = config('/work/a/.vscode/settings.json', 'vscode-settings');
const claudeDesktop = config('/home/u/.config/Claude/claude_desktop_config.json', 'claude-desktop', 'user');
const windsurf = config('/home/u/.codeium/windsurf/mcp_config.json', 'windsurf', 'user');
const cursorGlobal = config('/home/u/.cursor/mcp.json', 'cursor', 'user');
const cursorWorkspace = config('/work/a/.cursor/mcp.json', 'cursor');
const claudeCode = config('/home/u/.claude.json', 'claude-code', 'user');
const gemini = config('/work/a/.gemini/settings.json', 'gemini');

const defaults = parseChatMcpSettings(() => undefined);
const allDiscovery = parseChatMcpSettings((key) => (key === 'discovery.enabled' ? true : undefined));

void describe('parseChatMcpSettings', () => {
  const cases: ReadonlyArray<{ values: Record<string, unknown>; expected: ChatMcpSettings }> = [
    { values: {}, expected: { access: 'all', discovery: {} } },
    { values: { access: 'none' }, expected: { access: 'none', discovery: {} } },
    { values: { access: 'registry' }, expected: { access: 'registry', discovery: {} } },
    { values: { access: 'bogus' }, expected: { access: 'all', discovery: {} } },
    // Older VS Code: chat.mcp.enabled, migrated to access all/none.
    { values: { enabled: false }, expected: { access: 'none', discovery: {} } },
    { values: { enabled: false, access: 'all' }, expected: { access: 'all', discovery: {} } },
    {
      values: { 'discovery.enabled': true },
      expected: { access: 'all', discovery: { 'claude-desktop': true, windsurf: true, 'cursor-global': true, 'cursor-workspace': true } },
    },
    {
      values: { 'discovery.enabled': { 'claude-desktop': true, windsurf: false, 'cursor-workspace': 'yes' } },
      expected: { access: 'all', discovery: { 'claude-desktop': true } },
    },
  ];
  for (const { values, expected } of cases) {
    void it(JSON.stringify(values), () => {
      assert.deepEqual(
        parseChatMcpSettings((key) => values[key]),
        expected,
      );
    });
  }
});

void describe('vscodeWontStart', () => {
  const none = { ...defaults, access: 'none' as const };
  const registry = { ...defaults, access: 'registry' as const };
  const cases: ReadonlyArray<{ name: string; server: ServerConfig; settings: ChatMcpSettings; setting: string | null; summary?: RegExp }> =
    [
      { name: 'VS Code mcp.json, defaults', server: workspaceMcp, settings: defaults, setting: null },
      { name: 'user mcp.json, defaults', server: userMcp, settings: defaults, setting: null },
      { name: 'settings.json mcp section, defaults', server: settingsJson, settings: defaults, setting: null },
      {
        name: 'mcp.json, access none',
        server: workspaceMcp,
        settings: none,
        setting: 'chat.mcp.access',
        summary: /^VS Code won't start this server: chat\.mcp\.access is 'none'$/,
      },
      {
        name: 'user mcp.json, access registry',
        server: userMcp,
        settings: registry,
        setting: 'chat.mcp.access',
        summary: /chat\.mcp\.access is 'registry'/,
      },
      {
        name: 'Claude Desktop, discovery off (the default)',
        server: claudeDesktop,
        settings: defaults,
        setting: 'chat.mcp.discovery.enabled',
        summary: /is off for Claude Desktop$/,
      },
      { name: 'Claude Desktop, discovery on', server: claudeDesktop, settings: allDiscovery, setting: null },
      {
        name: 'Claude Desktop, discovery on, access none',
        server: claudeDesktop,
        settings: { ...allDiscovery, access: 'none' },
        setting: 'chat.mcp.access',
      },
      {
        name: 'Windsurf, only Claude Desktop discovered',
        server: windsurf,
        settings: { access: 'all', discovery: { 'claude-desktop': true } },
        setting: 'chat.mcp.discovery.enabled',
        summary: /Windsurf/,
      },
      {
        name: 'Cursor global, cursor-global on',
        server: cursorGlobal,
        settings: { access: 'all', discovery: { 'cursor-global': true } },
        setting: null,
      },
      {
        name: 'Cursor workspace, only cursor-global on',
        server: cursorWorkspace,
        settings: { access: 'all', discovery: { 'cursor-global': true } },
        setting: 'chat.mcp.discovery.enabled',
        summary: /Cursor \(workspace\)/,
      },
      // Files VS Code never reads are not VS Code's to start: nothing to say, whatever the settings.
      { name: 'Claude Code, access none', server: claudeCode, settings: none, setting: null },
      { name: 'Gemini, defaults', server: gemini, settings: defaults, setting: null },
    ];
  for (const { name, server, settings, setting, summary } of cases) {
    void it(name, () => {
      const block = vscodeWontStart(server, settings);
      assert.equal(block?.setting ?? null, setting);
      if (summary) assert.match(block?.summary ?? '', summary);
      if (block) assert.ok(block.nextStep.length > 0, 'a next step');
    });
  }

  void it("shows as a warning row and in the description, and leaves MCP Health's own verdict alone", () => {
    const block = vscodeWontStart(workspaceMcp, none);
    const up = status('srv', { state: 'up', vscodeWontStart: block });
    assert.equal(healthOf(up), 'ok', 'the server itself is healthy');
    assert.equal(describeState(up), "up · 3 ms · VS Code won't start it");
    assert.deepEqual(
      detailRows(up).find((row) => row.key === 'vscode'),
      {
        key: 'vscode',
        label: 'VS Code',
        value:
          "VS Code won't start this server: chat.mcp.access is 'none'. Next: Set chat.mcp.access to 'all' (if an organisation policy sets it, ask its administrator)",
        warning: true,
      },
    );
  });
});
