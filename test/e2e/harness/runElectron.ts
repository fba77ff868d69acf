import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { runTests } from '@vscode/test-electron';

export interface RunElectronOptions {
  readonly extensionDevelopmentPath: string;
  /** Compiled JS module exporting `run(): Promise<void>`, the same file runSuite takes. */
  readonly extensionTestsPath: string;
  /** A folder, or a .code-workspace file for a multi-root workspace. */
  readonly workspace: string;
  /** VS Code version to download; default the latest stable. */
  readonly version?: string;
  /** An installed desktop VS Code to use instead of downloading one; default $VSCODE_EXECUTABLE_PATH. */
  readonly vscodeExecutablePath?: string;
  readonly userSettings?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Runs the suite in a downloaded desktop VS Code. Needs the VS Code download host, which the project's own machines
 * cannot reach; there runSuite (code-server) is the way. Screenshot requests are answered with `false` here.
 */
export async function runElectron(options: RunElectronOptions): Promise<number> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-electron-'));
  try {
    fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
    fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(options.userSettings ?? {}, null, 2));
    return await runTests({
      version: options.version,
      vscodeExecutablePath: options.vscodeExecutablePath ?? process.env.VSCODE_EXECUTABLE_PATH,
      extensionDevelopmentPath: path.resolve(options.extensionDevelopmentPath),
      extensionTestsPath: path.resolve(options.extensionTestsPath),
      extensionTestsEnv: options.env ? { ...options.env } : undefined,
      launchArgs: [
        path.resolve(options.workspace),
        '--user-data-dir',
        userDataDir,
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
      ],
    });
  } catch (error) {
    // runTests rejects with the exit code message when tests fail; the failure details were already printed by mocha.
    process.stderr.write(`[harness] ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { extension: { type: 'string' }, tests: { type: 'string' }, workspace: { type: 'string' }, version: { type: 'string' } },
  });
  if (!values.extension || !values.tests || !values.workspace) {
    process.stderr.write(
      'usage: node --import tsx test/e2e/harness/runElectron.ts --extension DIR --tests FILE.js ' +
        '--workspace DIR|FILE.code-workspace [--version X.Y.Z]\n',
    );
    process.exit(2);
  }
  process.exitCode = await runElectron({
    extensionDevelopmentPath: values.extension,
    extensionTestsPath: values.tests,
    workspace: values.workspace,
    version: values.version,
  });
}

if (require.main === module) void main();
