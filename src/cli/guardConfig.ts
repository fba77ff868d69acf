// `mcp-health guard --print-config NAME`: the config entry that runs a discovered server through the guard, for
// clients whose config files the extension does not edit. Pure: builds text from a ServerConfig.

import type { ServerConfig } from '../core/model';
import { GUARD_LAUNCHER, guardPrefix, type GuardLauncher } from '../core/guardLauncher';
import { MASK } from '../core/redact';

export { GUARD_LAUNCHER } from '../core/guardLauncher';

export function guardedEntry(
  server: ServerConfig,
  launcher: GuardLauncher = GUARD_LAUNCHER,
): { command: string; args: string[]; env?: Record<string, string> } {
  const args: string[] = [];
  if (server.transport === 'stdio') {
    const prefix = guardPrefix(server.name, launcher).args;
    // A sandboxed server keeps its sandbox: the guard starts it inside, so the guard itself (its status socket) is not.
    if (server.sandbox) prefix.splice(prefix.length - 1, 0, '--sandbox', JSON.stringify(server.sandbox));
    args.push(...prefix, server.command ?? '', ...(server.args ?? []));
  } else {
    args.push(...launcher.args, '--name', server.name, '--url', server.url ?? '');
    if (server.transport === 'sse') args.push('--sse');
    // Header values are often tokens: they are masked here and must be copied from the original entry by hand.
    for (const name of Object.keys(server.headers ?? {})) args.push('--header', `${name}: ${MASK}`);
  }
  const entry: { command: string; args: string[]; env?: Record<string, string> } = { command: launcher.command, args };
  const envNames = Object.keys(server.env ?? {});
  if (envNames.length) entry.env = Object.fromEntries(envNames.map((name) => [name, MASK]));
  return entry;
}

export function guardSnippets(server: ServerConfig, launcher: GuardLauncher = GUARD_LAUNCHER): string {
  const entry = guardedEntry(server, launcher);
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
    `// To unguard, put the original command back (or remove "${[launcher.command, ...launcher.args].join(' ')} --name NAME --").`,
  ].join('\n');
}
