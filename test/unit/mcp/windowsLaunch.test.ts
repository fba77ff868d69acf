import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { resolveLaunch, type LaunchHost } from '../../../src/mcp/windowsLaunch';

// The SDK's stdio transport spawns through cross-spawn: its escaping is the oracle for ours.
const crossSpawnEscape = createRequire(__filename)('cross-spawn/lib/util/escape.js') as {
  command(command: string): string;
  argument(arg: string, doubleEscape: boolean): string;
};

function windows(files: readonly string[], env: NodeJS.ProcessEnv = {}): LaunchHost {
  const known = new Set(files.map((file) => file.toLowerCase()));
  return {
    platform: 'win32',
    env: {
      Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs;"C:\\Tools With Space"',
      PATHEXT: '.COM;.EXE;.BAT;.CMD',
      ComSpec: 'C:\\Windows\\system32\\cmd.exe',
      ...env,
    },
    cwd: 'C:\\work\\project',
    isFile: (file) => known.has(file.toLowerCase()),
  };
}

void describe('Windows launch resolution (as cross-spawn does it, without shell: true)', () => {
  void it('runs npx (npx.cmd on PATH) through cmd.exe /d /s /c by its full path, with every word escaped', () => {
    const launch = resolveLaunch('npx', ['-y', '@modelcontextprotocol/server-everything'], windows(['C:\\Program Files\\nodejs\\npx.cmd']));
    assert.deepEqual(launch, {
      command: 'C:\\Windows\\system32\\cmd.exe',
      // The path found, not the bare name: cmd.exe would look for a bare "npx" in the cwd first.
      args: ['/d', '/s', '/c', '"C:\\Program^ Files\\nodejs\\npx.CMD ^"-y^" ^"@modelcontextprotocol/server-everything^""'],
      windowsVerbatimArguments: true,
      // Found as PATHEXT spells it; Windows file names are case-insensitive.
      file: 'C:\\Program Files\\nodejs\\npx.CMD',
    });
  });

  void it('spawns an .exe directly, found through PATHEXT', () => {
    const launch = resolveLaunch('node', ['server.js', 'a b'], windows(['C:\\Program Files\\nodejs\\node.exe']));
    // By the file found: CreateProcess (libuv) would try a bare name in the cwd first.
    assert.deepEqual(launch, {
      command: 'C:\\Program Files\\nodejs\\node.EXE',
      args: ['server.js', 'a b'],
      windowsVerbatimArguments: false,
      file: 'C:\\Program Files\\nodejs\\node.EXE',
    });
  });

  void it('finds .cmd launchers in a quoted PATH entry, never in the working directory', () => {
    assert.equal(
      resolveLaunch('uvx', ['mcp-server-git'], windows(['C:\\Tools With Space\\uvx.cmd'])).file,
      'C:\\Tools With Space\\uvx.CMD',
    );
    assert.equal(
      resolveLaunch('uvx', [], windows(['C:\\Tools With Space\\uvx.cmd', 'C:\\work\\project\\uvx.bat'])).file,
      'C:\\Tools With Space\\uvx.CMD',
    );
  });

  void it("never runs an npx.cmd planted in the working directory (an untrusted repository's root)", () => {
    const planted = 'C:\\work\\project\\npx.cmd';
    const both = resolveLaunch('npx', ['-y', 'pkg'], windows([planted, 'C:\\Program Files\\nodejs\\npx.cmd']));
    assert.equal(both.file, 'C:\\Program Files\\nodejs\\npx.CMD');
    assert.ok(!both.args.join(' ').includes('work\\project'), both.args.join(' '));
    // Only in the cwd: not found, and not handed to cmd.exe either (it would search the cwd itself).
    const only = resolveLaunch('npx', ['-y', 'pkg'], windows([planted, 'C:\\work\\project\\npx.exe']));
    assert.equal(only.file, undefined);
    assert.equal(only.command, 'C:\\Windows\\system32\\npx');
    assert.equal(only.windowsVerbatimArguments, false);
    // A relative PATH entry means the cwd too: skipped.
    const relative = resolveLaunch('npx', [], windows([planted], { Path: '.;node_modules\\.bin;C:\\Windows\\system32' }));
    assert.equal(relative.file, undefined);
  });

  void it('escapes a command path with spaces and a .cmd given by its full name', () => {
    const launch = resolveLaunch(
      'C:\\Program Files\\My Tool\\server.cmd',
      ['--port', '0'],
      windows(['C:\\Program Files\\My Tool\\server.cmd']),
    );
    assert.equal(launch.command, 'C:\\Windows\\system32\\cmd.exe');
    assert.deepEqual(launch.args.slice(0, 3), ['/d', '/s', '/c']);
    assert.equal(launch.args[3], '"C:\\Program^ Files\\My^ Tool\\server.cmd ^"--port^" ^"0^""');
  });

  void it('keeps arguments with quotes, spaces, backslashes and cmd meta characters literal', () => {
    const tricky = ['say "hi"', 'C:\\dir with space\\', 'a&b|c', '100%', 'x^y', '', '\\\\"quoted\\\\"', '!bang!'];
    const launch = resolveLaunch('npx', tricky, windows(['C:\\Program Files\\nodejs\\npx.cmd']));
    // cross-spawn agrees on every argument but one: its backtracking-free regex escapes only the last backslash of a
    // run before a quote, so `\\"` comes out as 4 backslashes + quote, which CommandLineToArgvW reads as 2 backslashes
    // and the END of the quoted argument. We emit 2n+1 (here 5), read back as 2 backslashes and a literal quote.
    const agreed = tricky.filter((arg) => !arg.includes('quoted'));
    assert.deepEqual(
      agreed.map((arg) => resolveLaunch('npx', [arg], windows(['C:\\Program Files\\nodejs\\npx.cmd'])).args[3]),
      agreed.map((arg) => `"${crossSpawnEscape.command('C:\\Program Files\\nodejs\\npx.CMD')} ${crossSpawnEscape.argument(arg, false)}"`),
    );
    assert.equal(
      launch.args[3],
      '"C:\\Program^ Files\\nodejs\\npx.CMD ^"say^ \\^"hi\\^"^" ^"C:\\dir^ with^ space\\\\^" ^"a^&b^|c^" ^"100^%^" ^"x^^y^" ^"^" ^"\\\\\\\\\\^"quoted\\\\\\\\\\^"^" ^"^!bang^!^""',
    );
  });

  void it('double-escapes for a cmd-shim in node_modules/.bin, as cross-spawn does', () => {
    const shim = 'C:\\work\\project\\node_modules\\.bin\\my-server.cmd';
    const launch = resolveLaunch('node_modules\\.bin\\my-server', ['a&b'], windows([shim]));
    assert.equal(
      launch.args[3],
      `"${crossSpawnEscape.command('node_modules\\.bin\\my-server')} ${crossSpawnEscape.argument('a&b', true)}"`,
    );
  });

  void it("spawns a command found nowhere on PATH where PATH's first entry would have it, so the OS reports ENOENT", () => {
    const launch = resolveLaunch('missing-tool', ['x'], windows([], { ComSpec: undefined }));
    assert.equal(launch.command, 'C:\\Windows\\system32\\missing-tool');
    assert.equal(launch.file, undefined);
  });

  void it("on Linux and macOS spawns the file found on PATH's absolute entries, keeping the name as argv[0]", () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const host = (files: readonly string[], PATH: string): LaunchHost => ({
        platform,
        env: { PATH },
        cwd: '/work/project',
        isFile: (file) => files.includes(file),
      });
      const launch = resolveLaunch('npx', ['-y', 'say "hi"'], host(['/usr/bin/npx'], '/usr/local/bin:/usr/bin'));
      assert.deepEqual(launch, {
        command: '/usr/bin/npx',
        args: ['-y', 'say "hi"'],
        windowsVerbatimArguments: false,
        file: '/usr/bin/npx',
        argv0: 'npx',
      });
      // `.`, an empty entry and `node_modules/.bin` all mean the cwd to execvp: never searched.
      const planted = ['/work/project/npx', '/work/project/node_modules/.bin/npx', '/usr/bin/npx'];
      assert.equal(resolveLaunch('npx', [], host(planted, '.::node_modules/.bin:/usr/bin')).file, '/usr/bin/npx');
      const missing = resolveLaunch('npx', [], host(planted.slice(0, 2), '.:node_modules/.bin:/usr/local/bin'));
      assert.equal(missing.file, undefined);
      assert.equal(missing.command, '/usr/local/bin/npx');
      // A command that names a path is the config's choice: taken as written, relative to the cwd.
      assert.equal(resolveLaunch('./server.sh', [], host([], '/usr/bin')).command, './server.sh');
    }
  });
});
