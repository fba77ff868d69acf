// The words that put a stdio server behind `mcp-health guard`: one definition for `guard --print-config` and for
// the editor's "Guard This Server" rewrite, so the snippet a user copies and the entry the extension writes agree.

export interface GuardLauncher {
  readonly command: string;
  /** Words before the guard's own options, e.g. `-y mcp-health guard`. */
  readonly args: readonly string[];
}

/**
 * `npx -y mcp-health`: for a published package, resolved on every start. Not what the extension writes (the package is
 * not on a registry yet): "Guard This Server" writes `localLauncher(<stable copy>)`, see src/mcp/stableRuntime.ts.
 */
export const GUARD_LAUNCHER: GuardLauncher = { command: 'npx', args: ['-y', 'mcp-health', 'guard'] };

/**
 * This very CLI by its absolute path, for `guard --print-config`: the package is not on a registry yet, so `npx -y
 * mcp-health` cannot resolve it, while the CLI that prints the snippet certainly exists where it runs. Once the
 * package is installed from its tarball, that path is the install's own and stays put across upgrades of it.
 */
export function localLauncher(cliPath: string, node = 'node'): GuardLauncher {
  return { command: node, args: [cliPath, 'guard'] };
}

/**
 * The file of the extension's bundle that "Guard This Server" copies to a stable place (src/mcp/stableRuntime.ts):
 * the guard's own bundle, self-contained for a stdio upstream (the only kind the rewrite writes), run directly with the
 * same `guard --name N -- CMD` words. .vscodeignore ships it; the full CLI (dist/main.js) stays out of the VSIX.
 */
export const BUNDLED_GUARD_FILE = 'guard.js';

/**
 * The stable copy's file name under the extension's global storage `bin/`: a path without the extension's version in
 * it, so an entry naming it keeps working after the extension updates. src/core/guarded.ts recognises it.
 */
export const STABLE_GUARD_FILE = 'mcp-health-guard.js';

/** The command and the args that go before the upstream's own command line (which follows the `--`). */
export function guardPrefix(name: string, launcher: GuardLauncher = GUARD_LAUNCHER): { command: string; args: string[] } {
  // `--name -x` would read -x as an option of the guard (a usage error, exit 2): such a name is given in one word.
  const nameWords = name.startsWith('-') ? [`--name=${name}`] : ['--name', name];
  return { command: launcher.command, args: [...launcher.args, ...nameWords, '--'] };
}
