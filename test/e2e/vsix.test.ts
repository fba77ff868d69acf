// The packaged extension as a user gets it: `npm run package` builds the VSIX, code-server installs it with
// --install-extension, and the demo workspace of real servers shows up healthy on screen.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { clickNotificationButton } from './harness/notifications';
import { repoRoot } from './harness/paths';
import { workbenchUrl } from './harness/workbenchUrl';

const vsix = path.join(repoRoot, 'mcp-health.vsix');
const screenshots = path.join(repoRoot, 'test-results', 'vsix');
const demoWorkspace = path.join(repoRoot, 'demo', 'workspace');

describe('the VSIX installed into code-server', { timeout: 300_000 }, () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;

  before(() => {
    fs.rmSync(vsix, { force: true });
    execFileSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    fs.mkdirSync(screenshots, { recursive: true });
  });

  after(async () => {
    await workbench?.close();
    await server?.stop();
  });

  it('is a small package holding only what runs', () => {
    const listing = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).trim().split('\n');
    assert.ok(listing.includes('extension/dist/extension.js'));
    assert.ok(listing.includes('extension/dist/metrics.js'), 'the lazily loaded metrics module ships');
    assert.ok(listing.includes('extension/media/icon.png'));
    assert.deepEqual(listing.filter((entry) => /^extension\/(src|test|node_modules|bench)\//.test(entry)), []);
    assert.ok(fs.statSync(vsix).size < 1024 * 1024, 'VSIX under 1 MB');
  });

  it('installs with --install-extension and shows every demo server up', async () => {
    server = await startCodeServer({ vsixPaths: [vsix], userSettings: { 'security.workspace.trust.enabled': false } });
    const installed = fs.readdirSync(server.extensionsDir);
    assert.ok(installed.some((entry) => entry.startsWith('mcp-health.mcp-health-')), `installed: ${installed.join(', ')}`);

    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;
    await page.goto(workbenchUrl(server, demoWorkspace));
    await waitForWorkbench(page, 90_000);
    // Nothing starts before consent: the user clicks Allow in MCP Health's question, as anyone installing it would.
    await clickNotificationButton(page, /MCP Health found 5 servers in \.vscode\/mcp\.json and \.mcp\.json\. Start watching them\?/, 'Allow', 90_000);
    // Five real servers over stdio, two protocol eras: the aggregate reaches 5/5 once each answered its first probe.
    const statusItem = page.locator('.part.statusbar .statusbar-item', { hasText: 'MCP 5/5' }).first();
    await statusItem.waitFor({ state: 'visible', timeout: 120_000 });

    await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
    const tree = page.locator('.part.sidebar .monaco-list-row');
    await tree.filter({ hasText: 'modern' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: path.join(screenshots, 'installed.png') });
    // Rows render name and description as separate spans: innerText joins them without a space.
    const rows = (await tree.allInnerTexts()).join('\n');
    for (const name of ['everything', 'modern', 'slow-pong', 'flaky', 'everything-from-claude-code']) {
      assert.match(rows, new RegExp(`^${name}\\s*up`, 'm'), `tree row for ${name}:\n${rows}`);
    }
  });
});
