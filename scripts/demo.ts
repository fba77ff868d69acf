import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { launchWorkbenchBrowser, waitForWorkbench } from '../test/e2e/harness/browser';
import { startCodeServer, type CodeServer } from '../test/e2e/harness/codeServer';
import { clickNotificationButton, consentQuestion } from '../test/e2e/harness/notifications';
import { repoRoot } from '../test/e2e/harness/paths';
import { workbenchUrl } from '../test/e2e/harness/workbenchUrl';

// Opens the extension in a real VS Code (code-server) for a person to try, or with --screenshot captures it once.
// Assumes dist/ is already built; run `bash scripts/setup-code-server.sh` once before.

const usage = `usage: node --import tsx scripts/demo.ts [--extension DIR] [--workspace DIR|FILE.code-workspace]
       [--vsix FILE] [--screenshot FILE.png [--wait-for TEXT] [--wait SECONDS]]
  --extension   extension folder to load from source, linked into code-server's extensions dir (default: repo root)
  --workspace   folder or .code-workspace to open (default: demo/workspace)
  --vsix        install this VSIX instead of loading --extension from source
  --screenshot  open the workbench in headless Chromium, save a screenshot, exit: once a status bar item shows
                --wait-for TEXT (if given, up to 90 s), then after --wait more seconds (default 8)
`;

async function captureScreenshot(url: string, file: string, settleMs: number, statusBarText?: string): Promise<void> {
  const workbench = await launchWorkbenchBrowser();
  try {
    await workbench.page.goto(url);
    await waitForWorkbench(workbench.page, 60_000);
    // MCP Health starts nothing before consent: answer its question as the person in front of the demo would.
    await clickNotificationButton(workbench.page, consentQuestion, 'Allow', 60_000);
    process.stdout.write("clicked Allow in MCP Health's consent notification\n");
    if (statusBarText) {
      await workbench.page
        .locator('.part.statusbar .statusbar-item', { hasText: statusBarText })
        .first()
        .waitFor({ state: 'visible', timeout: 90_000 });
    }
    // Extension activation and the first probes happen after the workbench is laid out.
    await workbench.page.waitForTimeout(settleMs);
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    await workbench.page.screenshot({ path: file, type: 'png' });
    process.stdout.write(`screenshot saved to ${path.resolve(file)}\n`);
  } finally {
    await workbench.close();
  }
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve(signal));
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      extension: { type: 'string' },
      workspace: { type: 'string' },
      vsix: { type: 'string' },
      screenshot: { type: 'string' },
      wait: { type: 'string' },
      'wait-for': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    return;
  }
  const extension = path.resolve(values.extension ?? repoRoot);
  const workspace = path.resolve(values.workspace ?? path.join(repoRoot, 'demo', 'workspace'));
  for (const required of [extension, workspace, ...(values.vsix ? [values.vsix] : [])]) {
    if (!fs.existsSync(required)) throw new Error(`${required} does not exist`);
  }

  let server: CodeServer | undefined;
  const stopping = untilSignal();
  try {
    server = await startCodeServer({
      // Linked rather than passed as a payload: the payload needs the smoke-test driver, which also hides notifications.
      ...(values.vsix ? { vsixPaths: [values.vsix] } : { linkedExtensions: [extension] }),
      // A person opening the demo should not first have to answer the trust prompt for the demo folder.
      userSettings: { 'security.workspace.trust.enabled': false },
    });
    const url = workbenchUrl(server, workspace);
    if (values.screenshot) {
      await captureScreenshot(url, values.screenshot, Number(values.wait ?? 8) * 1000, values['wait-for']);
      return;
    }
    process.stdout.write(
      `MCP Health demo running. Open:\n\n  ${url}\n\n` +
        'MCP Health starts no server before you allow it: click Allow in its notification\n' +
        '("MCP Health found 5 servers in .vscode/mcp.json and .mcp.json. Start watching them?"), or Review… to choose.\n' +
        "Your answer is remembered in this demo's fresh profile until Ctrl-C.\n\nPress Ctrl-C to stop.\n",
    );
    const signal = await stopping;
    process.stdout.write(`\n${signal}: stopping code-server\n`);
  } finally {
    await server?.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
