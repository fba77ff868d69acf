// Path arithmetic for the platform being described, which in tests need not be the one running them.

import * as nodePath from 'node:path';

export type PathApi = typeof nodePath.posix;

export function pathApi(platform: NodeJS.Platform): PathApi {
  return platform === 'win32' ? nodePath.win32 : nodePath.posix;
}

/** Windows environment names are case-insensitive. */
export function lookupEnv(env: Readonly<Record<string, string | undefined>>, name: string, platform: NodeJS.Platform): string | undefined {
  const direct = env[name];
  if (direct !== undefined || platform !== 'win32') return direct;
  const wanted = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) {
    if (key.toUpperCase() === wanted) return value;
  }
  return undefined;
}

export interface PlatformDirs {
  readonly home: string;
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** %APPDATA% on Windows, with the usual fallback when the variable is missing. */
export function appDataDir(dirs: PlatformDirs): string {
  return lookupEnv(dirs.env, 'APPDATA', dirs.platform) ?? pathApi(dirs.platform).join(dirs.home, 'AppData', 'Roaming');
}

export function xdgConfigDir(dirs: PlatformDirs): string {
  const fromEnv = lookupEnv(dirs.env, 'XDG_CONFIG_HOME', dirs.platform);
  return fromEnv && pathApi(dirs.platform).isAbsolute(fromEnv) ? fromEnv : pathApi(dirs.platform).join(dirs.home, '.config');
}

export function defaultVscodeUserDir(dirs: PlatformDirs): string {
  const path = pathApi(dirs.platform);
  // Portable mode (a `data` folder beside the executable): VS Code sets VSCODE_PORTABLE to it, and keeps the user
  // folder in <data>/user-data/User.
  const portable = lookupEnv(dirs.env, 'VSCODE_PORTABLE', dirs.platform);
  if (portable && path.isAbsolute(portable)) return path.join(portable, 'user-data', 'User');
  if (dirs.platform === 'win32') return path.join(appDataDir(dirs), 'Code', 'User');
  if (dirs.platform === 'darwin') return path.join(dirs.home, 'Library', 'Application Support', 'Code', 'User');
  return path.join(xdgConfigDir(dirs), 'Code', 'User');
}

export function claudeDesktopConfigFile(dirs: PlatformDirs): string {
  const path = pathApi(dirs.platform);
  if (dirs.platform === 'win32') return path.join(appDataDir(dirs), 'Claude', 'claude_desktop_config.json');
  if (dirs.platform === 'darwin') return path.join(dirs.home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  return path.join(xdgConfigDir(dirs), 'Claude', 'claude_desktop_config.json');
}

export function zedUserSettingsFile(dirs: PlatformDirs): string {
  const path = pathApi(dirs.platform);
  if (dirs.platform === 'win32') return path.join(appDataDir(dirs), 'Zed', 'settings.json');
  // Zed keeps ~/.config/zed on macOS too.
  return path.join(dirs.platform === 'darwin' ? path.join(dirs.home, '.config') : xdgConfigDir(dirs), 'zed', 'settings.json');
}

export function codexHomeDir(dirs: PlatformDirs): string {
  const fromEnv = lookupEnv(dirs.env, 'CODEX_HOME', dirs.platform);
  return fromEnv && pathApi(dirs.platform).isAbsolute(fromEnv) ? fromEnv : pathApi(dirs.platform).join(dirs.home, '.codex');
}

/** opencode keeps its global config in the XDG config folder on every platform (xdg-basedir). */
export function opencodeConfigDir(dirs: PlatformDirs): string {
  return pathApi(dirs.platform).join(xdgConfigDir(dirs), 'opencode');
}

export function copilotHomeDir(dirs: PlatformDirs): string {
  const fromEnv = lookupEnv(dirs.env, 'COPILOT_HOME', dirs.platform);
  return fromEnv && pathApi(dirs.platform).isAbsolute(fromEnv) ? fromEnv : pathApi(dirs.platform).join(dirs.home, '.copilot');
}

/** Whether `file` lies below `folder` (not the folder itself), by the path rules of `platform`. */
export function isInside(file: string, folder: string, platform: NodeJS.Platform): boolean {
  const relative = pathApi(platform).relative(folder, file);
  return relative.length > 0 && !relative.startsWith('..') && !pathApi(platform).isAbsolute(relative);
}
