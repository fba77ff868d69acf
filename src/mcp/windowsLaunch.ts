// How a stdio server's command becomes what is spawned, the way the SDK's stdio transport does it (cross-spawn 7):
// on Windows a command is looked up on PATH with PATHEXT; an .exe/.com runs directly, anything else (npx.cmd,
// uvx.cmd, a .bat) cannot be run by CreateProcess and goes through cmd.exe /d /s /c with every word escaped for
// cmd.exe, so nothing in an argument is interpreted. We never pass `shell: true`. Elsewhere the command is unchanged.
// Pure over an injected host (platform, env, cwd, file test) so Linux CI can test the Windows rules.
// Not reproduced: cross-spawn's shebang sniffing of extension-less files (a Windows-only corner for Cygwin-style setups).

import * as path from 'node:path';

export interface LaunchHost {
  readonly platform: NodeJS.Platform;
  readonly env: NodeJS.ProcessEnv;
  /** The directory the child will start in (a relative command is looked up there first on Windows). */
  readonly cwd: string;
  isFile(file: string): boolean;
}

export interface ResolvedLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Set when the args are already escaped for cmd.exe; Node must not quote them again. */
  readonly windowsVerbatimArguments: boolean;
  /** The file the command was found as, when it was found. */
  readonly file?: string;
}

const DEFAULT_PATHEXT = '.EXE;.CMD;.BAT;.COM';
const EXECUTABLE = /\.(?:com|exe)$/i;
const CMD_SHIM = /node_modules[\\/].bin[\\/][^\\/]+\.cmd$/i;
// See cross-spawn lib/util/escape.js (after https://qntm.org/cmd).
const META_CHARS = /([()\][%!^"`<>&|;, *?])/g;

export function resolveLaunch(command: string, args: readonly string[], host: LaunchHost): ResolvedLaunch {
  if (host.platform !== 'win32') {
    return { command, args: [...args], windowsVerbatimArguments: false };
  }
  const file = findOnPath(command, host, true) ?? findOnPath(command, host, false);
  if (file !== undefined && EXECUTABLE.test(file)) {
    return { command, args: [...args], windowsVerbatimArguments: false, file };
  }
  const doubleEscape = file !== undefined && CMD_SHIM.test(file);
  const line = [escapeCommand(path.win32.normalize(command)), ...args.map((arg) => escapeArgument(arg, doubleEscape))].join(' ');
  return {
    command: envValue(host.env, 'comspec') ?? 'cmd.exe',
    args: ['/d', '/s', '/c', `"${line}"`],
    windowsVerbatimArguments: true,
    ...(file !== undefined ? { file } : {}),
  };
}

/** `which` on Windows: cwd first, then PATH; with PATHEXT (and the bare name too when it has a dot), or exact names. */
function findOnPath(command: string, host: LaunchHost, withPathExt: boolean): string | undefined {
  const hasSlash = /[\\/]/.test(command);
  const pathValue = envValue(host.env, 'path') ?? '';
  const dirs = hasSlash ? [''] : [host.cwd, ...pathValue.split(';')];
  const pathExt = withPathExt ? (envValue(host.env, 'pathext') ?? DEFAULT_PATHEXT).split(';') : [''];
  if (withPathExt && command.includes('.') && pathExt[0] !== '') {
    pathExt.unshift('');
  }
  const allowed = new Set(pathExt.map((ext) => ext.toLowerCase()));
  for (const rawDir of dirs) {
    const dir = /^".*"$/.test(rawDir) ? rawDir.slice(1, -1) : rawDir;
    const base = path.win32.resolve(host.cwd, dir, command);
    for (const ext of pathExt) {
      const candidate = base + ext;
      // Like isexe on Windows: an existing file whose extension is in PATHEXT (any file when searching exact names).
      if (host.isFile(candidate) && (!withPathExt || allowed.has('') || allowed.has(path.win32.extname(candidate).toLowerCase()))) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** Windows environment names are case-insensitive; the last spelling wins, as in path-key. */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const key = Object.keys(env).reverse().find((candidate) => candidate.toLowerCase() === name);
  return key === undefined ? undefined : env[key];
}

function escapeCommand(command: string): string {
  return command.replace(META_CHARS, '^$1');
}

function escapeArgument(arg: string, doubleEscape: boolean): string {
  // Backslashes before a quote are doubled and the quote escaped; trailing backslashes doubled (they precede the
  // closing quote added next). Then the whole is quoted and cmd.exe's meta characters escaped with ^.
  let escaped = arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1');
  escaped = `"${escaped}"`.replace(META_CHARS, '^$1');
  return doubleEscape ? escaped.replace(META_CHARS, '^$1') : escaped;
}
