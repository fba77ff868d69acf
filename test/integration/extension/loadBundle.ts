// The built dist/extension.js run in a child process with the bench's fake `vscode` (load-bundle.cjs).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');

export interface LoadResult {
  /** The dist/lazy files required by the time activate() returned, and by the end. */
  readonly atActivation: string[];
  readonly afterDiscovery: string[];
  readonly servers: Array<{ name: string; state: string }>;
  /** Every line the extension logged, `<level> <message>`. */
  readonly logLines: string[];
}

export interface LoadOptions {
  /** Waits until these servers are listed (15 s at most). */
  readonly expectNames?: readonly string[];
  /** ... and until these files exist. */
  readonly expectFiles?: readonly string[];
  /** deactivate() in activate()'s own tick, before the deferred start. */
  readonly deactivateAtOnce?: boolean;
  /** Commands run right after activate(), in its tick (before the deferred start). */
  readonly commandsAtOnce?: readonly string[];
}

/** `scratch` holds the private home and the extension's storage (<scratch>/storage, laid out as bench/extension/fake-vscode.cjs does). */
export function loadBundle(
  workspaceFolder: string,
  scratch: string,
  { expectNames = [], expectFiles = [], deactivateAtOnce = false, commandsAtOnce = [] }: LoadOptions = {},
): Promise<LoadResult> {
  const home = path.join(scratch, 'home');
  fs.mkdirSync(home, { recursive: true });
  const options = {
    extensionPath: ROOT,
    workspaceFolder,
    storageDir: path.join(scratch, 'storage'),
    expectNames,
    expectFiles,
    waitMs: 15_000,
    deactivateAtOnce,
    commandsAtOnce,
  };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(__dirname, 'load-bundle.cjs'), JSON.stringify(options)],
      {
        // A private home: discovery must find only this test's workspace files, never the user's own configs.
        env: {
          ...process.env,
          HOME: home,
          USERPROFILE: home,
          XDG_CONFIG_HOME: path.join(home, '.config'),
          APPDATA: path.join(home, 'AppData'),
          CODEX_HOME: path.join(home, '.codex'),
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const line = stdout.split('\n').find((text) => text.startsWith('RESULT '));
        if (line) resolve(JSON.parse(line.slice('RESULT '.length)) as LoadResult);
        else reject(new Error(`load-bundle: ${error?.message ?? 'no result'}\n${stderr}`));
      },
    );
  });
}
