// Every path discovery reads, and a file watcher should watch, whether or not it exists yet.

import type { ConfigFormat } from '../model';
import {
  claudeDesktopConfigFile,
  codexHomeDir,
  copilotHomeDir,
  defaultVscodeUserDir,
  isInside,
  lookupEnv,
  opencodeConfigDir,
  pathApi,
  zedUserSettingsFile,
  type PlatformDirs,
} from './platformPaths';
import { detectFormat } from './detectFormat';
import type { CandidateFile, DiscoveryOptions } from './types';

export function candidateFiles(options: DiscoveryOptions): CandidateFile[] {
  if (options.configFiles && options.configFiles.length > 0) {
    return dedupe(options.configFiles.map((file) => explicitCandidate(file, options)));
  }
  const enabled = (format: ConfigFormat): boolean => options.sources?.[format] !== false;
  const path = pathApi(options.platform);
  const found: CandidateFile[] = [];
  const add = (format: ConfigFormat, candidate: Omit<CandidateFile, 'format'>): void => {
    if (enabled(format)) found.push({ ...candidate, format });
  };

  for (const folder of options.workspaceFolders) {
    const workspace = (file: string, dir?: boolean) => ({ file, scope: 'workspace' as const, folder, ...(dir ? { dir } : {}) });
    add('vscode', workspace(path.join(folder, '.vscode', 'mcp.json')));
    add('vscode-settings', workspace(path.join(folder, '.vscode', 'settings.json')));
    add('vscode', workspace(path.join(folder, '.devcontainer', 'devcontainer.json')));
    add('vscode', workspace(path.join(folder, '.devcontainer.json')));
    add('mcp-json', workspace(path.join(folder, '.mcp.json')));
    add('cursor', workspace(path.join(folder, '.cursor', 'mcp.json')));
    add('roo', workspace(path.join(folder, '.roo', 'mcp.json')));
    add('gemini', workspace(path.join(folder, '.gemini', 'settings.json')));
    add('codex', workspace(path.join(folder, '.codex', 'config.toml')));
    add('continue', workspace(path.join(folder, '.continue', 'mcpServers'), true));
    add('zed', workspace(path.join(folder, '.zed', 'settings.json')));
    add('kiro', workspace(path.join(folder, '.kiro', 'settings', 'mcp.json')));
    for (const name of ['opencode.json', 'opencode.jsonc']) {
      add('opencode', workspace(path.join(folder, name)));
      add('opencode', workspace(path.join(folder, '.opencode', name)));
    }
    add('antigravity', workspace(path.join(folder, '.agents', 'mcp_config.json')));
  }

  if (options.includeUser) {
    const dirs: PlatformDirs = { home: options.userHome, platform: options.platform, env: options.env };
    const vscodeUserDir = options.vscodeUserDir ?? defaultVscodeUserDir(dirs);
    const globalStorage = options.globalStorageDir ?? path.join(vscodeUserDir, 'globalStorage');
    const home = options.userHome;
    const user = (file: string, dir?: boolean) => ({ file, scope: 'user' as const, ...(dir ? { dir } : {}) });
    add('vscode', user(path.join(vscodeUserDir, 'mcp.json')));
    add('vscode-settings', user(path.join(vscodeUserDir, 'settings.json')));
    add('claude-code', user(path.join(home, '.claude.json')));
    add('cursor', user(path.join(home, '.cursor', 'mcp.json')));
    add('claude-desktop', user(claudeDesktopConfigFile(dirs)));
    add('windsurf', user(path.join(home, '.codeium', 'windsurf', 'mcp_config.json')));
    add('cline', user(path.join(globalStorage, 'saoudrizwan.claude-dev', 'settings', 'cline_mcp_settings.json')));
    add('roo', user(path.join(globalStorage, 'rooveterinaryinc.roo-cline', 'settings', 'mcp_settings.json')));
    add('gemini', user(path.join(home, '.gemini', 'settings.json')));
    add('codex', user(path.join(codexHomeDir(dirs), 'config.toml')));
    add('continue', user(path.join(home, '.continue', 'mcpServers'), true));
    add('zed', user(zedUserSettingsFile(dirs)));
    add('kiro', user(path.join(home, '.kiro', 'settings', 'mcp.json')));
    add('opencode', user(path.join(opencodeConfigDir(dirs), 'opencode.json')));
    add('opencode', user(path.join(opencodeConfigDir(dirs), 'opencode.jsonc')));
    // OPENCODE_CONFIG names one more file, read after the global one.
    const opencodeCustom = lookupEnv(options.env, 'OPENCODE_CONFIG', options.platform);
    if (opencodeCustom && path.isAbsolute(opencodeCustom)) add('opencode', user(path.normalize(opencodeCustom)));
    add('copilot-cli', user(path.join(copilotHomeDir(dirs), 'mcp-config.json')));
    add('antigravity', user(path.join(home, '.gemini', 'antigravity-cli', 'mcp_config.json')));
  }
  return dedupe(found);
}

/** A workspace opened at the home folder would list ~/.cursor/mcp.json twice; the workspace reading wins. */
function dedupe(candidates: CandidateFile[]): CandidateFile[] {
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    if (seen.has(candidate.file)) return false;
    seen.add(candidate.file);
    return true;
  });
}

/** Marker folders whose parent is the project a file configures. */
const PROJECT_MARKERS = new Set(['.vscode', '.cursor', '.roo', '.gemini', '.codex', '.zed', '.devcontainer', '.opencode', '.agents']);

function explicitCandidate(file: string, options: DiscoveryOptions): CandidateFile {
  const path = pathApi(options.platform);
  const absolute = path.isAbsolute(file) ? path.normalize(file) : path.resolve(file);
  const format = detectFormat(absolute, '');
  const containing = options.workspaceFolders.find((folder) => isInside(absolute, folder, options.platform));
  const project = projectFolderOf(absolute, options.platform);
  // ~/.cursor/mcp.json and friends look like project files of the home folder, but they are the user's own.
  const folder = containing ?? (project !== undefined && project !== path.normalize(options.userHome) ? project : undefined);
  return folder ? { file: absolute, format, scope: 'workspace', folder } : { file: absolute, format, scope: 'user' };
}

function projectFolderOf(file: string, platform: NodeJS.Platform): string | undefined {
  const path = pathApi(platform);
  const dir = path.dirname(file);
  const base = path.basename(file);
  if (base === '.mcp.json' || base === '.devcontainer.json') return dir;
  if (PROJECT_MARKERS.has(path.basename(dir))) return path.dirname(dir);
  // opencode.json at a project's root; ~/.config/opencode/opencode.json is the user's own.
  if ((base === 'opencode.json' || base === 'opencode.jsonc') && path.basename(dir) !== 'opencode') return dir;
  if (path.basename(dir) === 'settings' && path.basename(path.dirname(dir)) === '.kiro') return path.dirname(path.dirname(dir));
  if (path.basename(dir) === 'mcpServers' && path.basename(path.dirname(dir)) === '.continue') {
    return path.dirname(path.dirname(dir));
  }
  return undefined;
}
