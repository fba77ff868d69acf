// `mcp-health guard --print-config NAME`: the config entry that runs a discovered server through the guard, for
// clients whose config files the extension does not edit. Pure: builds text from a ServerConfig.

import type { ServerConfig } from '../core/model';
import { MASK } from '../core/redact';

/**
 * `npx -y mcp-health` rather than the absolute path of this CLI: the path of a CLI inside an editor extension
 * contains the extension's version and disappears with the next update, and a Node version manager moves a global
 * install; npx resolves the package on every start, so the entry keeps working after updates.
 */
export const GUARD_LAUNCHER = { command: 'npx', args: ['-y', 'mcp-health', 'guard'] } as const;

export function guardedEntry(server: ServerConfig): { command: string; args: string[]; env?: Record<string, string> } {
  const args = [...GUARD_LAUNCHER.args, '--name', server.name];
  if (server.transport === 'stdio') {
    args.push('--', server.command ?? '', ...(server.args ?? []));
  } else {
    args.push('--url', server.url ?? '');
    if (server.transport === 'sse') args.push('--sse');
    // Header values are often tokens: they are masked here and must be copied from the original entry by hand.
    for (const name of Object.keys(server.headers ?? {})) args.push('--header', `${name}: ${MASK}`);
  }
  const entry: { command: string; args: string[]; env?: Record<string, string> } = { command: GUARD_LAUNCHER.command, args };
  const envNames = Object.keys(server.env ?? {});
  if (envNames.length) entry.env = Object.fromEntries(envNames.map((name) => [name, MASK]));
  return entry;
}

export function guardSnippets(server: ServerConfig): string {
  const entry = guardedEntry(server);
  const masked = entry.env !== undefined || (server.headers !== undefined && Object.keys(server.headers).length > 0);
  const vscode = { servers: { [server.name]: { type: 'stdio', ...entry } } };
  const portable = { mcpServers: { [server.name]: entry } };
  return [
    `// VS Code (.vscode/mcp.json or the profile mcp.json): "servers"`,
    JSON.stringify(vscode, null, 2),
    '',
    `// Claude Code, Cursor and most other clients (.mcp.json, mcp.json): "mcpServers"`,
    JSON.stringify(portable, null, 2),
    ...(masked ? ['', `// Values shown as ${MASK} are masked: keep the ones of your current entry.`] : []),
    '// To unguard, put the original command back (or remove "npx -y mcp-health guard --name NAME --").',
  ].join('\n');
}
