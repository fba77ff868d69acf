import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { forwardConsole, launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './browser';
import { startCodeServer, type CodeServer } from './codeServer';
import { parseScreenshotRequest, screenshotsDirEnv } from './screenshots';
import { workbenchUrl } from './workbenchUrl';

export interface RunSuiteOptions {
  readonly extensionDevelopmentPath: string;
  /** Compiled JS module exporting `run(): Promise<void>` (the @vscode/test-electron contract). */
  readonly extensionTestsPath: string;
  /** A folder, or a .code-workspace file for a multi-root workspace. */
  readonly workspace: string;
  /** Receives NAME.png for each `[[screenshot:NAME]]` the suite prints, and final.png when the suite ends. */
  readonly screenshotsDir?: string;
  readonly timeoutMs?: number;
  /** Merged over the harness defaults, which include "security.workspace.trust.enabled": false. */
  readonly userSettings?: Readonly<Record<string, unknown>>;
  /** Extra environment for code-server and so for the extension host. */
  readonly env?: Readonly<Record<string, string>>;
  readonly log?: (line: string) => void;
}

const timeoutExitCode = 124;

/** Runs the suite inside code-server's extension host and resolves with mocha's exit code (124 on timeout). */
export async function runSuite(options: RunSuiteOptions): Promise<number> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const timeoutMs = options.timeoutMs ?? 300_000;
  const screenshotsDir = options.screenshotsDir ? path.resolve(options.screenshotsDir) : undefined;
  if (screenshotsDir) fs.mkdirSync(screenshotsDir, { recursive: true });
  const started = Date.now();
  const elapsed = (): string => `${((Date.now() - started) / 1000).toFixed(1)} s`;

  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    server = await startCodeServer({
      smokeTestDriver: true,
      // Tests of Restricted Mode turn trust back on through userSettings.
      userSettings: { 'security.workspace.trust.enabled': false, ...options.userSettings },
      // The suite runs in ExtensionMode.Test behind the smoke-test driver, which hides notifications: nobody could click
      // Allow. This pre-seed (honoured only in Test mode) grants consent; test/e2e/consent.test.ts clicks the real one.
      env: { MCP_HEALTH_TEST_CONSENT: 'allow-all', ...options.env, ...(screenshotsDir ? { [screenshotsDirEnv]: screenshotsDir } : {}) },
    });
    log(`[harness] code-server ready at ${server.url} after ${elapsed()}`);
    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;

    let screenshots = Promise.resolve();
    const saveScreenshot = (name: string): Promise<void> => {
      if (!screenshotsDir) return Promise.resolve();
      screenshots = screenshots
        .then(async () => {
          const file = path.join(screenshotsDir, `${name}.png`);
          const partial = `${file}.partial`;
          await page.screenshot({ path: partial, type: 'png' });
          fs.renameSync(partial, file);
          log(`[harness] screenshot ${file}`);
        })
        .catch((error: unknown) => log(`[harness] screenshot ${name} failed: ${String(error)}`));
      return screenshots;
    };

    const exitCode = new Promise<number>((resolve) => {
      timer = setTimeout(
        () => {
          log(`[harness] suite did not finish within ${timeoutMs} ms`);
          resolve(timeoutExitCode);
        },
        Math.max(0, started + timeoutMs - Date.now()),
      );
      // Must exist before the workbench loads: it is looked up when the extension host exits.
      void page.exposeFunction('codeAutomationExit', (code: unknown) => resolve(typeof code === 'number' ? code : 1));
    });
    const consoleForwarding = forwardConsole(page, '[vscode] ', (line) => {
      log(line);
      const requested = parseScreenshotRequest(line);
      if (requested) void saveScreenshot(requested);
    });

    const url = workbenchUrl(server, options.workspace, {
      extensionDevelopmentPath: path.resolve(options.extensionDevelopmentPath),
      extensionTestsPath: path.resolve(options.extensionTestsPath),
    });
    // Only wait for the navigation to start: the overall timeout below must also bound a page that never loads.
    await page.goto(url, { waitUntil: 'commit' });
    void waitForWorkbench(page, timeoutMs).then(
      () => log(`[harness] workbench ready after ${elapsed()}`),
      () => undefined,
    );

    const code = await exitCode;
    await consoleForwarding.flush();
    log(`[harness] suite finished with exit code ${code} after ${elapsed()}`);
    await saveScreenshot(code === timeoutExitCode ? 'timeout' : 'final');
    return code;
  } finally {
    if (timer) clearTimeout(timer);
    await workbench?.close();
    await server?.stop();
  }
}

function usage(): never {
  process.stderr.write(
    'usage: node --import tsx test/e2e/harness/runSuite.ts --extension DIR --tests FILE.js ' +
      '--workspace DIR|FILE.code-workspace [--screenshots DIR] [--timeout SECONDS] [--settings FILE.json]\n',
  );
  process.exit(2);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      extension: { type: 'string' },
      tests: { type: 'string' },
      workspace: { type: 'string' },
      screenshots: { type: 'string' },
      timeout: { type: 'string' },
      settings: { type: 'string' },
    },
  });
  if (!values.extension || !values.tests || !values.workspace) usage();
  const code = await runSuite({
    extensionDevelopmentPath: values.extension,
    extensionTestsPath: values.tests,
    workspace: values.workspace,
    screenshotsDir: values.screenshots,
    timeoutMs: values.timeout ? Number(values.timeout) * 1000 : undefined,
    userSettings: values.settings ? (JSON.parse(fs.readFileSync(values.settings, 'utf8')) as Record<string, unknown>) : undefined,
  });
  process.exitCode = code;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`[harness] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
