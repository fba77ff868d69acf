// Servers VS Code itself will not start because of its own `chat.mcp.*` settings, with the setting to change.
// MCP Health's verdict on the server is not touched: it may be up on MCP Health's connection while chat has none.
//
// The settings, as VS Code's workbench declares them (contrib/chat and contrib/mcp):
// - `chat.mcp.access`: `none` (no MCP servers at all), `registry` (only servers installed from the MCP registry VS
//   Code is connected to; a server written in a config file is not one), `all` (the default). An organisation policy
//   may set it. Older VS Code had `chat.mcp.enabled` (boolean), migrated to access `all`/`none`.
// - `chat.mcp.discovery.enabled`: per source (`claude-desktop`, `windsurf`, `cursor-global`, `cursor-workspace`),
//   whether VS Code also runs the servers in that other client's file; an older form is one boolean for all.
// `chat.mcp.autostart` only decides when VS Code starts a server, never whether it may: it blocks nothing.

import * as l10n from '@vscode/l10n';
import type { ServerConfig } from '../core/model';
import { isVsCodeSource } from './vscodeMcpId';

export type McpAccess = 'none' | 'registry' | 'all';
export type DiscoverySource = 'claude-desktop' | 'windsurf' | 'cursor-global' | 'cursor-workspace';

export interface ChatMcpSettings {
  readonly access: McpAccess;
  /** Sources whose servers VS Code runs too; a source missing here is off. */
  readonly discovery: Readonly<Partial<Record<DiscoverySource, boolean>>>;
}

/** Why VS Code will not start a server, and the one thing to change. */
export interface VsCodeStartBlock {
  /** The setting that decides it, e.g. `chat.mcp.access`. */
  readonly setting: string;
  readonly summary: string;
  readonly nextStep: string;
}

const ACCESS_VALUES: readonly McpAccess[] = ['none', 'registry', 'all'];
const SOURCES: readonly DiscoverySource[] = ['claude-desktop', 'windsurf', 'cursor-global', 'cursor-workspace'];

/** Reads the settings below `chat.mcp.` (`access`, `enabled`, `discovery.enabled`) as VS Code reads them. */
export function parseChatMcpSettings(read: (key: string) => unknown): ChatMcpSettings {
  const access = read('access');
  const legacyEnabled = read('enabled');
  const discovery = read('discovery.enabled');
  const perSource: Partial<Record<DiscoverySource, boolean>> = {};
  for (const source of SOURCES) {
    const value = typeof discovery === 'boolean' ? discovery : isRecord(discovery) ? discovery[source] : undefined;
    if (value === true) perSource[source] = true;
  }
  return {
    access: ACCESS_VALUES.includes(access as McpAccess) ? (access as McpAccess) : legacyEnabled === false ? 'none' : 'all',
    discovery: perSource,
  };
}

/** The discovery source a server's file is, for VS Code; undefined for files VS Code owns or never reads. */
export function discoverySourceOf(config: ServerConfig): DiscoverySource | undefined {
  switch (config.source.format) {
    case 'claude-desktop':
      return 'claude-desktop';
    case 'windsurf':
      return 'windsurf';
    case 'cursor':
      return config.source.scope === 'user' ? 'cursor-global' : 'cursor-workspace';
    default:
      return undefined;
  }
}

const SOURCE_LABELS: Readonly<Record<DiscoverySource, string>> = {
  'claude-desktop': 'Claude Desktop',
  windsurf: 'Windsurf',
  'cursor-global': 'Cursor (global)',
  'cursor-workspace': 'Cursor (workspace)',
};

/**
 * Null when VS Code may start the server, or when it is not VS Code's to start (a file of a client VS Code never
 * reads: Claude Code, Gemini, Codex, ...).
 */
export function vscodeWontStart(config: ServerConfig, settings: ChatMcpSettings): VsCodeStartBlock | null {
  const source = discoverySourceOf(config);
  if (!isVsCodeSource(config) && source === undefined) return null;
  if (settings.access === 'none') {
    return {
      setting: 'chat.mcp.access',
      summary: l10n.t("VS Code won't start this server: chat.mcp.access is 'none'"),
      nextStep: l10n.t("Set chat.mcp.access to 'all' (if an organisation policy sets it, ask its administrator)"),
    };
  }
  if (settings.access === 'registry') {
    return {
      setting: 'chat.mcp.access',
      summary: l10n.t("VS Code won't start this server: chat.mcp.access is 'registry' (only servers installed from the MCP registry)"),
      nextStep: l10n.t("Set chat.mcp.access to 'all', or install the server from the registry"),
    };
  }
  if (source !== undefined && settings.discovery[source] !== true) {
    return {
      setting: 'chat.mcp.discovery.enabled',
      summary: l10n.t("VS Code won't start this server: chat.mcp.discovery.enabled is off for {0}", SOURCE_LABELS[source]),
      nextStep: l10n.t('Turn on "{0}" in chat.mcp.discovery.enabled, or add the server to a VS Code mcp.json', source),
    };
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
