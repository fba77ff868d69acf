// The packaged extension as a user gets it: `npm run package` builds the VSIX, code-server installs it with
// --install-extension, and the demo workspace of real servers shows up healthy on screen. Then what a new user checks:
// the walkthrough, the ping log after a status-bar click, one count in every view, one notification for two servers
// that fail together; the README's screenshots are taken here, outside any development host.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import type { Page } from 'playwright-core';
import { launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { clickNotificationButton, consentQuestion } from './harness/notifications';
import { repoRoot } from './harness/paths';
import { workbenchUrl } from './harness/workbenchUrl';
import { runCommand } from './harness/quickInput';

const vsix = path.join(repoRoot, 'mcp-health.vsix');
const screenshots = path.join(repoRoot, 'test-results', 'vsix');
const demoWorkspace = path.join(repoRoot, 'demo', 'workspace');
const docsImages = path.join(repoRoot, 'docs', 'images');
const faultServer = path.join(repoRoot, 'test', 'fixtures', 'servers', 'fault-server.mjs');
const everythingServer = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/** Where vsce points relative links once `repository` is set; the marketplace shows the packaged files under it. */
const REPOSITORY_RAW = 'https://github.com/mcp-health/mcp-health/raw/HEAD/';

function zipListing(file: string): string[] {
  return execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n');
}

/** Image references of a Markdown document: `![alt](target)` and `<img src="target">`. */
function imageTargets(markdown: string): string[] {
  const targets = [...markdown.matchAll(/!\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!);
  targets.push(...[...markdown.matchAll(/<img\s[^>]*src="([^"]+)"/g)].map((match) => match[1]!));
  return targets;
}

/** A workspace folder in a temp dir with the given `.vscode/mcp.json` servers. */
function workspaceWith(servers: Record<string, { command: string; args: string[] }>): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-vsix-ws-'));
  fs.mkdirSync(path.join(folder, '.vscode'));
  fs.writeFileSync(path.join(folder, '.vscode', 'mcp.json'), JSON.stringify({ servers }, null, 2));
  return folder;
}

const fault = (spec: string) => ({ command: 'node', args: [faultServer, '--transport', 'stdio', '--fault', spec] });

function findFile(dir: string, name: string): string | undefined {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name === name) return full;
    if (entry.isDirectory()) {
      const found = findFile(full, name);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Saves a README screenshot to the test results, after looking for dev-host traces. With MCP_HEALTH_README_SCREENSHOTS=1
 * it also replaces docs/images/NAME: look at each before committing it.
 */
async function readmeScreenshot(page: Page, name: string): Promise<void> {
  const title = await page.title();
  assert.ok(!title.includes('Extension Development Host'), `window title: ${title}`);
  const file = path.join(screenshots, name);
  await page.screenshot({ path: file });
  if (process.env.MCP_HEALTH_README_SCREENSHOTS === '1') fs.copyFileSync(file, path.join(docsImages, name));
}

/** The three views' counts at one moment: status bar, the activity-bar badge, the dashboard's summary line. */
async function viewCounts(page: Page): Promise<{ statusBar: string; badge: string; dashboard: string }> {
  const statusBar = (await page.locator('.part.statusbar [aria-label^="MCP Health:"]').first().getAttribute('aria-label')) ?? '';
  const badgeLocator = page.locator('.part.activitybar .action-item:has([aria-label^="MCP Health"]) .badge-content');
  const badge = (await badgeLocator.count()) > 0 ? (await badgeLocator.first().innerText()).trim() : '';
  const dashboard = await page
    .frameLocator('iframe.webview.ready')
    .frameLocator('iframe')
    .locator('#summary')
    .innerText({ timeout: 2_000 })
    .catch(() => '');
  return { statusBar, badge, dashboard };
}

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
    const listing = zipListing(vsix);
    assert.ok(listing.includes('extension/dist/extension.js'));
    assert.ok(listing.includes('extension/dist/metrics.js'), 'the lazily loaded metrics module ships');
    for (const lazy of ['yaml.js', 'smol-toml.js', 'guardRewrite.js', 'createConfig.js', 'report.js'])
      assert.ok(listing.includes(`extension/dist/lazy/${lazy}`), `the lazily loaded ${lazy} ships`);
    assert.ok(listing.includes('extension/dist/guard.js'), 'the guard runtime Guard This Server copies ships');
    assert.ok(!listing.includes('extension/dist/main.js'), 'the full CLI stays out of the package');
    assert.ok(listing.includes('extension/media/icon.png'));
    assert.deepEqual(
      listing.filter((entry) => /^extension\/(src|test|node_modules|bench)\//.test(entry)),
      [],
    );
    // 1.5 MB: VS Code's sandbox runtime ships with it (dist/sandbox: srt.mjs and its seccomp helper, 0.4 MB packed), so a
    // server the user chose to sandbox is watched inside the same sandbox; everything else stays as small as before.
    assert.ok(listing.includes('extension/dist/sandbox/srt.mjs'), 'the sandbox runtime ships');
    assert.ok(fs.statSync(vsix).size < 1.5 * 1024 * 1024, 'VSIX under 1.5 MB');
  });

  it('ships every image its README shows, under links that resolve in the package and in the repository', () => {
    const listing = new Set(zipListing(vsix));
    const packaged = execFileSync('unzip', ['-p', vsix, 'extension/readme.md'], { encoding: 'utf8' });
    const source = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const packagedTargets = imageTargets(packaged);
    assert.ok(packagedTargets.length >= 4, `images in the packaged README: ${packagedTargets.join(', ')}`);
    assert.ok(
      packagedTargets.some((target) => target.endsWith('ping-log.png')),
      'the ping log screenshot is shown',
    );
    for (const target of packagedTargets) {
      const inPackage = target.startsWith(REPOSITORY_RAW) ? target.slice(REPOSITORY_RAW.length) : target;
      assert.ok(!/^[a-z]+:/i.test(inPackage), `${target} points outside the package`);
      assert.ok(listing.has(`extension/${path.posix.normalize(inPackage)}`), `${target} is not in the VSIX`);
    }
    for (const target of imageTargets(source)) {
      assert.ok(!target.startsWith('..') && !/^[a-z]+:/i.test(target), `README image ${target} must be a path inside the repository`);
      assert.ok(fs.existsSync(path.join(repoRoot, target)), `README image ${target} exists in the repository`);
    }
    // No link of the README may leave the repository (it used to point at ../shared/...).
    assert.deepEqual(
      [...source.matchAll(/\]\((\.\.\/[^)]*)\)/g)].map((match) => match[1]),
      [],
    );
  });

  it('installs with --install-extension and shows every demo server up', async () => {
    server = await startCodeServer({
      vsixPaths: [vsix],
      // Probes every 5 s so the fault servers below show their faults within the test's time.
      userSettings: {
        'security.workspace.trust.enabled': false,
        'mcpHealth.pingIntervalSeconds.stdio': 5,
        'git.openRepositoryInParentFolders': 'never',
      },
    });
    const installed = fs.readdirSync(server.extensionsDir);
    assert.ok(
      installed.some((entry) => entry.startsWith('mcp-health.mcp-health-')),
      `installed: ${installed.join(', ')}`,
    );

    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;
    await page.goto(workbenchUrl(server, demoWorkspace));
    await waitForWorkbench(page, 90_000);
    // Nothing starts before consent: the user clicks Allow in MCP Health's question, as anyone installing it would.
    await clickNotificationButton(
      page,
      /MCP Health found 5 servers in \.vscode\/mcp\.json and \.mcp\.json\. Start watching them\?/,
      'Allow',
      90_000,
    );
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
    await readmeScreenshot(page, 'tree-and-status-bar.png');
  });

  it('opens its walkthrough', async () => {
    assert.ok(workbench);
    const { page } = workbench;
    await runCommand(page, 'MCP Health: Get Started');
    await page.locator('.part.editor', { hasText: 'Get Started with MCP Health' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('.part.editor', { hasText: 'What MCP Health does' }).first().waitFor({ state: 'visible', timeout: 10_000 });
    await page.screenshot({ path: path.join(screenshots, 'walkthrough.png') });
    await page.keyboard.press('Control+K');
    await page.keyboard.press('W');
  });

  it('a status-bar click pings every server, says so in the item, and the ping log shows each probe at the default level', async () => {
    assert.ok(workbench);
    const { page } = workbench;
    const clickedWall = Date.now();
    await page.locator('.part.statusbar [aria-label^="MCP Health:"]').first().click();
    await page
      .locator('.part.statusbar .statusbar-item', { hasText: /5 pinged: \d ok/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await runCommand(page, 'MCP Health: Show Ping Log');
    // The log level is never touched: probes are at info, the channel's default, so they show in the panel.
    const log = page.locator('.part.panel .view-lines');
    // Monaco renders spaces as no-break spaces: \s matches both.
    await log
      .filter({ hasText: /\[info\]\sprobe\s\S+:\s(ping|server\/discover)\sid=\S+\sok\sin\s[\d.]+\sms/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await readmeScreenshot(page, 'ping-log.png');
    // The panel scrolls on as probes arrive; the whole channel is in the log file the workbench writes for it.
    assert.ok(server);
    const file = findFile(server.userDataDir, 'MCP Health.log');
    assert.ok(file, 'the ping log file');
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /\[info\] ping all: 5 pinged: \d ok/);
    const clickedAt = text.search(/ping all: 5 pinged/);
    for (const name of ['everything', 'slow-pong']) {
      assert.match(text, new RegExp(`\\[info\\] probe ${name}: ping id=\\d+ ok in [\\d.]+ ms`), `a probe of ${name} in the log`);
    }
    assert.match(text, /\[info\] probe modern: server\/discover id=\S+ ok in [\d.]+ ms/);
    // The click's own probes: one line per server between the click and the outcome line.
    const at = (line: string) => new Date(line.slice(0, 23).replace(' ', 'T')).getTime();
    const lines = text.slice(0, clickedAt).split('\n');
    const outcomeAt = at(text.slice(text.lastIndexOf('\n', clickedAt) + 1));
    for (const name of ['everything', 'modern', 'slow-pong', 'everything-from-claude-code']) {
      assert.ok(
        lines.some((line) => line.includes(`probe ${name}: `) && at(line) >= clickedWall - 1000 && at(line) <= outcomeAt),
        `a probe of ${name} logged between the click and its outcome`,
      );
    }
  });

  it('the status bar, the tree badge and the dashboard agree with one down, one flapping and one suspect server; the dashboard survives a reload', async () => {
    assert.ok(server && workbench);
    const { page } = workbench;
    const folder = workspaceWith({
      healthy: { command: 'node', args: [everythingServer, 'stdio'] },
      down: { command: 'node', args: ['-e', 'process.exit(4)'] },
      // Crashes 4 s after every start: three restarts flag it as flapping.
      flapping: fault('exit:3:4000'),
      // Answers ping with a non-empty result: a protocol violation, twice, so non-conformant.
      suspect: fault('nonempty-pong'),
    });
    try {
      await page.goto(workbenchUrl(server, folder));
      await waitForWorkbench(page, 90_000);
      // The installed extension asks before it starts a new workspace's servers, as it would for a user.
      await clickNotificationButton(page, consentQuestion, 'Allow', 90_000);
      await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
      const tree = page.locator('.part.sidebar .monaco-list-row');
      await tree
        .filter({ hasText: /flapping, \d+ restarts/ })
        .first()
        .waitFor({ state: 'visible', timeout: 90_000 });
      await tree
        .filter({ hasText: /^suspect\s*suspect/ })
        .first()
        .waitFor({ state: 'visible', timeout: 60_000 });
      await runCommand(page, 'MCP Health: Show Dashboard');
      // One healthy of four; the badge counts the three problems. The flapping server is briefly down or verifying
      // between crashes, so look until one reading of all three views shows the expected model.
      const expected = {
        statusBar: 'MCP Health: 1 of 4 monitored servers healthy',
        badge: '3',
        dashboard: '1 of 4 monitored servers healthy',
      };
      let last = { statusBar: '', badge: '', dashboard: '' };
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        last = await viewCounts(page);
        if (last.statusBar === expected.statusBar && last.badge === expected.badge && last.dashboard === expected.dashboard) break;
        await page.waitForTimeout(250);
      }
      assert.deepEqual(last, expected);
      const statusItem = page.locator('.part.statusbar [aria-label^="MCP Health:"]').first();
      assert.match(await statusItem.innerText(), /MCP 1\/4/);
      assert.equal(await statusItem.locator('.codicon-error').count(), 1, 'the worst problem shows at a glance');
      await readmeScreenshot(page, 'dashboard.png');
      // A window reload brings the dashboard back, with live data again (the webview panel serializer).
      // Through the command, as a user does: the workbench saves its editors (and the panel's state) before reloading.
      await runCommand(page, 'Developer: Reload Window');
      await page.waitForLoadState('domcontentloaded');
      await waitForWorkbench(page, 90_000);
      await page
        .frameLocator('iframe.webview.ready')
        .frameLocator('iframe')
        .locator('#summary', { hasText: /monitored servers? healthy/ })
        .waitFor({ state: 'visible', timeout: 60_000 });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('tells two servers that fail together in one notification', async () => {
    assert.ok(server && workbench);
    const { page } = workbench;
    // Two servers that exit 8 s after their first start and then fail to start again (a marker file says they ran):
    // they go down together and stay down.
    const once = (marker: string) => ({
      command: 'sh',
      args: ['-c', `test -e "$0" && exit 1; touch "$0"; exec node "$1" --transport stdio --fault exit:3:8000`, marker, faultServer],
    });
    const markers = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-vsix-once-'));
    const folder = workspaceWith({
      healthy: { command: 'node', args: [everythingServer, 'stdio'] },
      'twin-a': once(path.join(markers, 'a')),
      'twin-b': once(path.join(markers, 'b')),
    });
    try {
      await page.goto(workbenchUrl(server, folder));
      await waitForWorkbench(page, 90_000);
      // The installed extension asks before it starts a new workspace's servers, as it would for a user.
      await clickNotificationButton(page, consentQuestion, 'Allow', 90_000);
      await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
      const toasts = page.locator('.notification-toast');
      await toasts.filter({ hasText: '2 MCP servers are down' }).first().waitFor({ state: 'visible', timeout: 60_000 });
      // The status bar tells the same story as the notification.
      await page
        .locator('.part.statusbar [aria-label="MCP Health: 1 of 3 monitored servers healthy"]')
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });
      await page.mouse.move(700, 300); // no stale hover over the activity bar in the picture
      await readmeScreenshot(page, 'demo-notification.png');
      // Their retries keep failing (the tree still shows them down); one toast for both, none per server.
      const tree = page.locator('.part.sidebar .monaco-list-row');
      await tree
        .filter({ hasText: /^twin-a\s*down/ })
        .first()
        .waitFor({ state: 'visible', timeout: 10_000 });
      assert.equal(await toasts.filter({ hasText: '2 MCP servers are down' }).count(), 1);
      assert.equal(await toasts.filter({ hasText: /MCP server "twin-[ab]" is down/ }).count(), 0);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
      fs.rmSync(markers, { recursive: true, force: true });
    }
  });
});
