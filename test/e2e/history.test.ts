// History that survives a window reload, in a real VS Code (code-server) with MCP Health installed as a user has it
// (Production mode: the user clicks Allow). One server up, one crashing until MCP Health gives up on it; then one Ping
// All, whose answered probe is the only event left, must show the healthy server's uptime in the tree by itself (the
// row is drawn from that event, so the history has to have counted it first). After Developer: Reload Window the tree
// shows the kept uptime before the reloaded window has probed anything (the keepalive interval is an hour), so the
// figures can only have come from the history file, which is on disk in the workspace storage.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { clickNotificationButton, consentQuestion } from './harness/notifications';
import { repoRoot } from './harness/paths';
import { runCommand } from './harness/quickInput';
import { workbenchUrl } from './harness/workbenchUrl';
import { waitFor } from '../helpers/wait';

const screenshots = path.join(repoRoot, 'test-results', 'history');
const everythingServer = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

function findFiles(dir: string, name: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findFiles(full, name);
    return entry.name === name ? [full] : [];
  });
}

async function treeRows(page: Page): Promise<string> {
  return (await page.locator('.part.sidebar .monaco-list-row').allInnerTexts()).join('\n');
}

/** The rows when every pattern matches them; otherwise throws them, so a wait that times out shows what the tree said. */
async function rowsMatching(page: Page, ...patterns: RegExp[]): Promise<string> {
  const rows = await treeRows(page);
  if (!patterns.every((pattern) => pattern.test(rows))) throw new Error(`the tree shows:\n${rows}`);
  return rows;
}

type StoredServer = { name: string; m: number[][] };

describe('history across a window reload (code-server, Production mode)', { timeout: 300_000 }, () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-history-e2e-'));
  const workspace = path.join(root, 'workspace');

  before(() => {
    fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    fs.writeFileSync(
      path.join(workspace, '.vscode', 'mcp.json'),
      JSON.stringify(
        {
          servers: {
            healthy: { type: 'stdio', command: 'node', args: [everythingServer, 'stdio'] },
            broken: { type: 'stdio', command: 'node', args: ['-e', 'process.exit(4)'] },
          },
        },
        null,
        2,
      ),
    );
    fs.mkdirSync(screenshots, { recursive: true });
  });

  after(async () => {
    await workbench?.close();
    await server?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('keeps uptime across Developer: Reload Window and shows it in the tree before the new window probes', async () => {
    server = await startCodeServer({
      linkedExtensions: [repoRoot],
      userSettings: {
        'security.workspace.trust.enabled': false,
        'mcpHealth.discovery.includeUserConfigs': false,
        // No keepalive probe within the test after the reload: uptime shown then comes from the file.
        'mcpHealth.pingIntervalSeconds.stdio': 3600,
      },
    });
    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;
    await page.goto(workbenchUrl(server, workspace));
    await waitForWorkbench(page, 90_000);
    await clickNotificationButton(page, consentQuestion, 'Allow', 90_000);
    await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
    // Five crashes within the back-off's first steps (at most 1 + 2 + 4 + 8 s apart) end in the give-up.
    await waitFor('healthy up and broken given up on', () => rowsMatching(page, /^healthy\s*up/m, /^broken\s*gave up/m), 90_000);
    // Up by its handshake alone is not verified time: one answered probe makes it count, and nothing else happens after it.
    await runCommand(page, 'MCP Health: Ping All Servers');
    const before = await waitFor(
      'kept uptime in the tree',
      () => rowsMatching(page, /^healthy\s*up.*100 % \(24 h\)/m, /^broken\s*gave up.*0 % \(24 h\)/m),
      30_000,
    );
    await page.screenshot({ path: path.join(screenshots, 'history-before-reload.png') });

    const reloadAt = Date.now();
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForLoadState('domcontentloaded');
    await waitForWorkbench(page, 90_000);

    // The window that closed wrote the file on its way out (the periodic write is 45 s away).
    // The old extension host may still be finishing its deactivate while the new window comes up.
    const storage = path.join(server.userDataDir, 'User', 'workspaceStorage');
    const [file, ...others] = await waitFor(
      'a history file in the workspace storage',
      () => {
        const found = findFiles(storage, 'history.json');
        return found.length > 0 && found;
      },
      30_000,
    );
    assert.ok(file);
    assert.deepEqual(others, [], 'one file per workspace');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      format: string;
      version: number;
      savedAt: number;
      servers: StoredServer[];
    };
    assert.equal(stored.format, 'mcp-health-history');
    // Written by the closing window: the new one writes 45 s after its first event at the earliest.
    assert.ok(stored.savedAt >= reloadAt, `saved ${reloadAt - stored.savedAt} ms before the reload`);
    const healthy = stored.servers.find((s) => s.name === 'healthy');
    const broken = stored.servers.find((s) => s.name === 'broken');
    // Tuples: [start, ok, failed, rttSum, rttCount, rttMin, rttMax, upMs, downMs, stateChanges].
    const total = (s: StoredServer | undefined, index: number) => (s?.m ?? []).reduce((sum, tuple) => sum + (tuple[index] ?? 0), 0);
    assert.ok(total(healthy, 1) >= 1 && total(healthy, 7) > 0 && total(healthy, 8) === 0, JSON.stringify(healthy));
    assert.ok(total(broken, 8) > 0 && total(broken, 7) === 0, JSON.stringify(broken));

    const tree = page.locator('.part.sidebar .monaco-list-row');
    // The reloaded window restores the MCP Health side bar; open it only if it did not.
    const restored = await tree
      .filter({ hasText: /^healthy/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 })
      .then(
        () => true,
        () => false,
      );
    if (!restored) await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click({ force: true });
    // The new window starts the broken server again (a give-up lasts for one window), so it may be down or given up.
    const after = await waitFor(
      'kept uptime shown again after the reload',
      () => rowsMatching(page, /^healthy\s*up.*100 % \(24 h\)/m, /^broken\s*(down|gave up).*0 % \(24 h\)/m),
      60_000,
    );
    await tree
      .filter({ hasText: /^healthy/ })
      .first()
      .click();
    await tree
      .filter({ hasText: /history\s*uptime 1 h 100 % · 24 h 100 % · 7 d 100 %/ })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 });
    await page.mouse.move(700, 300);
    await page.screenshot({ path: path.join(screenshots, 'history-after-reload.png') });
    assert.ok(before && after);
  });
});
