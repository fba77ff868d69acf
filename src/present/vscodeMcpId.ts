// VS Code's own id for a server it runs from one of its config files, so MCP Health can hand that server to VS Code's
// commands (workbench.mcp.restartServer / showOutput take this id). The form, read from VS Code's workbench source
// (contrib/mcp, config discovery): `mcp.config.<collection>.<server name>`, where the collection is `usrlocal` for the
// user profile's mcp.json, `ws<N>` for `.vscode/mcp.json` of workspace folder N, `workspace` for a .code-workspace
// file. Settings' `mcp` sections are migrated into those mcp.json files, so they share the ids. Pure: no editor API.

import * as path from 'node:path';
import type { ServerConfig } from '../core/model';

const PREFIX = 'mcp.config.';

/** True for a server VS Code itself can run: declared in a VS Code mcp.json or settings.json (not a devcontainer). */
export function isVsCodeSource(config: ServerConfig): boolean {
  if (config.source.format !== 'vscode' && config.source.format !== 'vscode-settings') return false;
  const base = path.basename(config.source.file);
  return base === 'mcp.json' || base === 'settings.json';
}

export function vscodeMcpServerId(config: ServerConfig, workspaceFolders: readonly string[]): string | undefined {
  if (!isVsCodeSource(config)) return undefined;
  if (config.source.scope === 'user') return `${PREFIX}usrlocal.${config.name}`;
  const vscodeDir = path.dirname(config.source.file);
  if (path.basename(vscodeDir) !== '.vscode') return undefined;
  const folder = path.dirname(vscodeDir);
  const index = workspaceFolders.findIndex((candidate) => path.resolve(candidate) === path.resolve(folder));
  return index === -1 ? undefined : `${PREFIX}ws${index}.${config.name}`;
}
