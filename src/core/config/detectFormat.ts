// Tells a file's format from its name, and from its content when the name is shared by several clients.

import type { ConfigFormat } from '../model';

export function detectFormat(file: string, text: string): ConfigFormat {
  const parts = file.split(/[\\/]+/).filter((part) => part.length > 0);
  const base = (parts[parts.length - 1] ?? '').toLowerCase();
  const parent = (parts[parts.length - 2] ?? '').toLowerCase();
  const grandParent = (parts[parts.length - 3] ?? '').toLowerCase();

  if (base.endsWith('.toml')) return 'codex';
  if (base.endsWith('.yaml') || base.endsWith('.yml')) return 'continue';
  if (parent === 'mcpservers' && grandParent === '.continue') return 'continue';
  if (base === '.mcp.json') return 'mcp-json';
  if (base === '.claude.json') return 'claude-code';
  if (base === 'claude_desktop_config.json') return 'claude-desktop';
  if (base === 'mcp_config.json' && parent === 'windsurf') return 'windsurf';
  if (base === 'mcp_config.json' && (parent === '.agents' || parent === 'antigravity-cli')) return 'antigravity';
  if (base === 'mcp-config.json') return 'copilot-cli';
  if (base === 'opencode.json' || base === 'opencode.jsonc') return 'opencode';
  if (base === 'cline_mcp_settings.json') return 'cline';
  if (base === 'mcp_settings.json' && parent === 'settings' && grandParent === 'rooveterinaryinc.roo-cline') return 'roo';
  if (base === 'devcontainer.json' || base === '.devcontainer.json') return 'vscode';
  if (base === 'mcp.json') {
    if (parent === 'settings' && grandParent === '.kiro') return 'kiro';
    if (parent === '.cursor') return 'cursor';
    if (parent === '.roo') return 'roo';
    if (parent === '.vscode' || parent === 'user') return 'vscode';
  }
  if (base === 'settings.json') {
    if (parent === '.gemini') return 'gemini';
    if (parent === '.zed' || parent === 'zed') return 'zed';
    if (parent === '.vscode' || parent === 'user') return 'vscode-settings';
  }
  return detectFromContent(text);
}

/** Cheap key sniffing: the text may be invalid, and a full parse happens afterwards anyway. */
function detectFromContent(text: string): ConfigFormat {
  const has = (pattern: RegExp): boolean => pattern.test(text);
  if (has(/^\s*\[\s*mcp_servers[.\]]/m) || has(/^\s*mcp_servers\s*=/m)) return 'codex';
  if (has(/"context_servers"\s*:/)) return 'zed';
  if (has(/"customizations"\s*:/)) return 'vscode';
  if (has(/opencode\.ai\/config\.json/) || (has(/"mcp"\s*:\s*\{/) && has(/"type"\s*:\s*"(?:local|remote)"/))) return 'opencode';
  if (has(/"mcp"\s*:\s*\{/) && !has(/"mcpServers"\s*:/)) return 'vscode-settings';
  if (has(/"servers"\s*:/) && !has(/"mcpServers"\s*:/)) return 'vscode';
  if (has(/"mcpServers"\s*:/)) {
    if (has(/"projects"\s*:/)) return 'claude-code';
    if (has(/"type"\s*:\s*"local"/)) return 'copilot-cli';
    if (has(/"serverUrl"\s*:/)) return 'windsurf';
    if (has(/"httpUrl"\s*:/)) return 'gemini';
    if (has(/"type"\s*:\s*"streamableHttp"/)) return 'cline';
    if (has(/"type"\s*:\s*"streamable-http"/)) return 'roo';
    return 'mcp-json';
  }
  if (has(/^\s*-?\s*name\s*:/m) || has(/^\s*mcpServers\s*:/m)) return 'continue';
  return 'mcp-json';
}
