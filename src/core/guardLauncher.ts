// The words that put a stdio server behind `mcp-health guard`: one definition for `guard --print-config` and for
// the editor's "Guard This Server" rewrite, so the snippet a user copies and the entry the extension writes agree.

export interface GuardLauncher {
  readonly command: string;
  /** Words before the guard's own options, e.g. `-y mcp-health guard`. */
  readonly args: readonly string[];
}

/**
 * `npx -y mcp-health` rather than the absolute path of this CLI: the path of a CLI inside an editor extension
 * contains the extension's version and disappears with the next update, and a Node version manager moves a global
 * install; npx resolves the package on every start, so the entry keeps working after updates.
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

/** The command and the args that go before the upstream's own command line (which follows the `--`). */
export function guardPrefix(name: string, launcher: GuardLauncher = GUARD_LAUNCHER): { command: string; args: string[] } {
  return { command: launcher.command, args: [...launcher.args, '--name', name, '--'] };
}
