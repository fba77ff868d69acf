// How a stdio server's command becomes what is spawned. A bare command name is looked up on PATH only, never in the
// working directory (which may be a folder the user has not trusted): Windows' own lookup (libuv, cmd.exe, cross-spawn)
// tries the cwd first, and on POSIX a relative PATH entry (`.`, ``, `node_modules/.bin`) means the cwd, so we look it
// up ourselves over PATH's absolute entries and spawn the file found. A command that names a path (has a separator) is
// the config's own choice and is taken as written, relative to the cwd.
// On Windows, as the SDK's stdio transport does (cross-spawn 7): PATHEXT applies; an .exe/.com runs directly, anything
// else (npx.cmd, uvx.cmd, a .bat) cannot be run by CreateProcess and goes through cmd.exe /d /s /c with every word
// escaped for cmd.exe, so nothing in an argument is interpreted. We never pass `shell: true`.
// Pure over an injected host (platform, env, cwd, file test) so Linux CI can test the Windows rules.
// Not reproduced: cross-spawn's shebang sniffing of extension-less files (a Windows-only corner for Cygwin-style setups).

import * as path from 'node:path';

export interface LaunchHost {
  readonly platform: NodeJS.Platform;
  readonly env: NodeJS.ProcessEnv;
  /** The directory the child will start in: a command naming a relative path is taken from there. */
  readonly cwd: string;
  isFile(file: string): boolean;
  /** POSIX: an executable file (execvp skips the others); isFile when absent. */
  isExecutable?(file: string): boolean;
}

export interface ResolvedLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Set when the args are already escaped for cmd.exe; Node must not quote them again. */
  readonly windowsVerbatimArguments: boolean;
  /** The file the command was found as, when it was found. */
  readonly file?: string;
  /** POSIX: what the child sees as argv[0] (the name as configured, as execvp would pass it). */
  readonly argv0?: string;
}

const DEFAULT_PATHEXT = '.EXE;.CMD;.BAT;.COM';
const EXECUTABLE = /\.(?:com|exe)$/i;
const CMD_SHIM = /node_modules[\\/].bin[\\/][^\\/]+\.cmd$/i;
// See cross-spawn lib/util/escape.js (after https://qntm.org/cmd).
const META_CHARS = /([()\][%!^"`<>&|;, *?])/g;

export function resolveLaunch(command: string, args: readonly string[], host: LaunchHost): ResolvedLaunch {
  if (host.platform !== 'win32') {
    return resolvePosix(command, args, host);
  }
  const named = /[\\/]/.test(command);
  const file = findOnPath(command, host, true) ?? findOnPath(command, host, false);
  if (file === undefined && !named) {
    // Not on PATH: cmd.exe or CreateProcess would go on to look in the cwd, so spawn where PATH's first entry would
    // have it and let the OS report ENOENT ("command not found ... check PATH").
    return { command: notOnPath(command, windowsPathDirs(host), path.win32), args: [...args], windowsVerbatimArguments: false };
  }
  if (file !== undefined && EXECUTABLE.test(file)) {
    return { command: named ? command : file, args: [...args], windowsVerbatimArguments: false, file };
  }
  const doubleEscape = file !== undefined && CMD_SHIM.test(file);
  // The file found, not the bare name: cmd.exe would look for a bare name in the cwd first.
  const line = [
    escapeCommand(path.win32.normalize(named || file === undefined ? command : file)),
    ...args.map((arg) => escapeArgument(arg, doubleEscape)),
  ].join(' ');
  return {
    command: envValue(host.env, 'comspec') ?? 'cmd.exe',
    args: ['/d', '/s', '/c', `"${line}"`],
    windowsVerbatimArguments: true,
    ...(file !== undefined ? { file } : {}),
  };
}

/** execvp over PATH's absolute entries only; a command with a slash is left to the OS (relative to the cwd). */
function resolvePosix(command: string, args: readonly string[], host: LaunchHost): ResolvedLaunch {
  if (command.includes('/')) {
    return { command, args: [...args], windowsVerbatimArguments: false };
  }
  const dirs = (envValue(host.env, 'path', false) ?? '').split(':').filter((dir) => path.posix.isAbsolute(dir));
  const executable = host.isExecutable ?? host.isFile;
  const file = dirs.map((dir) => path.posix.join(dir, command)).find((candidate) => executable(candidate));
  if (file === undefined) {
    return { command: notOnPath(command, dirs, path.posix), args: [...args], windowsVerbatimArguments: false, argv0: command };
  }
  return { command: file, args: [...args], windowsVerbatimArguments: false, file, argv0: command };
}

/** A path that is not there (the command is on no PATH entry), so the spawn fails with the OS's own ENOENT. */
function notOnPath(command: string, dirs: readonly string[], api: path.PlatformPath): string {
  return api.join(dirs[0] ?? api.sep, command);
}

function windowsPathDirs(host: LaunchHost): string[] {
  return (envValue(host.env, 'path') ?? '')
    .split(';')
    .map(unquote)
    .filter((dir) => path.win32.isAbsolute(dir));
}

function unquote(dir: string): string {
  return /^".*"$/.test(dir) ? dir.slice(1, -1) : dir;
}

/** `which` on Windows over PATH's absolute entries (never the cwd); with PATHEXT (and the bare name too when it has a dot), or exact names. */
function findOnPath(command: string, host: LaunchHost, withPathExt: boolean): string | undefined {
  const hasSlash = /[\\/]/.test(command);
  const dirs = hasSlash ? [''] : windowsPathDirs(host);
  const pathExt = withPathExt ? (envValue(host.env, 'pathext') ?? DEFAULT_PATHEXT).split(';') : [''];
  if (withPathExt && command.includes('.') && pathExt[0] !== '') {
    pathExt.unshift('');
  }
  const allowed = new Set(pathExt.map((ext) => ext.toLowerCase()));
  for (const dir of dirs) {
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

/** Windows environment names are case-insensitive; the last spelling wins, as in path-key. POSIX ones are exact. */
function envValue(env: NodeJS.ProcessEnv, name: string, caseInsensitive = true): string | undefined {
  if (!caseInsensitive) return env[name.toUpperCase()];
  const key = Object.keys(env)
    .reverse()
    .find((candidate) => candidate.toLowerCase() === name);
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
