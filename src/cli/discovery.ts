// What the terminal commands discover: the workspaces and config files named on the command line (the current
// directory when none), plus user-level configs unless told otherwise. Shared by list/check/watch and guard --print-config.

import * as os from 'node:os';
import * as path from 'node:path';
import { discover, type DiscoveryResult } from '../core/config/discover';
import { nodeFileSystem } from '../mcp/nodeFileSystem';

export interface DiscoverySelection {
  readonly workspaces: readonly string[];
  readonly configFiles: readonly string[];
  readonly includeUser: boolean;
}

/** Given only --config files, nothing else is discovered: the user named exactly what to read. */
export function discoverConfigs(selection: DiscoverySelection): Promise<DiscoveryResult> {
  const onlyConfigFiles = selection.configFiles.length > 0 && selection.workspaces.length === 0;
  const cwd = process.cwd();
  return discover(
    {
      workspaceFolders: onlyConfigFiles
        ? []
        : (selection.workspaces.length ? selection.workspaces : [cwd]).map((dir) => path.resolve(cwd, dir)),
      userHome: os.homedir(),
      platform: process.platform,
      env: process.env,
      includeUser: selection.includeUser && !onlyConfigFiles,
      configFiles: selection.configFiles.map((file) => path.resolve(cwd, file)),
    },
    nodeFileSystem,
  );
}
