// Status where the server is configured, proven in a real VS Code (code-server) with MCP Health installed as a user has
// it (linked into the extensions dir: Production mode, consent asked in the real notification). A workspace with two
// real servers (server-everything over stdio, and over Streamable HTTP on 127.0.0.1): the lens above each entry of
// .vscode/mcp.json shows its state, round trip and tools; killing the HTTP server turns its lens to down live; the
// lens's Ping probes; the hover on a name shows the details; mcpHealth.codeLens.enabled=false removes every lens.
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
import { workbenchUrl } from './harness/workbenchUrl';
import { startEverythingHttp, type RunningServer } from '../helpers/servers';
import { waitFor } from '../helpers/wait';

const screenshots = path.join(repoRoot, 'test-results', 'codelens');
const docsImages = path.join(repoRoot, 'docs', 'images');
const everythingEntry = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

/** The text of each MCP Health lens line in the open editor, top to bottom (VS Code's own MCP lenses have no Show Log). */
async function ourLenses(page: Page): Promise<string[]> {
  const lines = await page.locator('.monaco-editor .codelens-decoration').allInnerTexts();
  return lines.map((line) => line.replace(/\s+/g, ' ').trim()).filter((line) => line.includes('Show Log'));
}

async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshots, { recursive: true });
  const file = path.join(screenshots, name);
  await page.screenshot({ path: file });
  return file;
}

/** The workspace's .vscode/settings.json, written as a user edits it; VS Code applies it from its file watcher. */
/** A screenshot the README shows: with MCP_HEALTH_README_SCREENSHOTS=1 it replaces docs/images/NAME (look at it first). */
async function readmeShot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(screenshots, { recursive: true });
  const file = path.join(screenshots, name);
  // The top of the editor only: what the feature shows, and a small image in the VSIX.
  const box = await page.locator('.part.editor').boundingBox();
  await page.screenshot({
    path: file,
    ...(box ? { clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 430) } } : {}),
  });
  if (process.env.MCP_HEALTH_README_SCREENSHOTS === '1') fs.copyFileSync(file, path.join(docsImages, name));
}

function writeWorkspaceSettings(workspace: string, settings: Record<string, unknown>): void {
  fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
}

describe('status where the server is configured: CodeLens and hover (code-server, Production mode)', { timeout: 300_000 }, () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  let remote: RunningServer | undefined;
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-codelens-'));
  const mcpJson = path.join(workspace, '.vscode', 'mcp.json');

  before(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    remote = await startEverythingHttp('streamableHttp');
    fs.mkdirSync(path.dirname(mcpJson), { recursive: true });
    fs.writeFileSync(
      mcpJson,
      `${JSON.stringify(
        {
          servers: {
            everything: { type: 'stdio', command: 'node', args: [everythingEntry, 'stdio'] },
            remote: { type: 'http', url: remote.url },
          },
        },
        null,
        2,
      )}\n`,
    );
  });

  after(async () => {
    await workbench?.close();
    await server?.stop();
    await remote?.stop();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('shows state, round trip and tools above each entry, live, with Ping, a hover, and one setting to turn it off', async () => {
    server = await startCodeServer({
      linkedExtensions: [repoRoot],
      userSettings: {
        'security.workspace.trust.enabled': false,
        'mcpHealth.discovery.includeUserConfigs': false,
        'mcpHealth.pingIntervalSeconds.stdio': 5,
        'mcpHealth.pingIntervalSeconds.http': 5,
        'git.openRepositoryInParentFolders': 'never',
      },
    });
    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;
    await page.goto(workbenchUrl(server, workspace));
    await waitForWorkbench(page, 90_000);
    await clickNotificationButton(page, consentQuestion, 'Allow', 90_000);

    // Open the config as a user does: Quick Open.
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.type('.vscode/mcp.json');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'mcp.json' })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 });
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor .view-line', { hasText: '"everything"' }).first().waitFor({ state: 'visible', timeout: 15_000 });

    // Both servers up, each with its round trip and its tool count (server-everything lists its tools once connected).
    const upLenses = await waitFor(
      'both lenses up with a round trip and tools',
      async () => {
        const lenses = await ourLenses(page);
        return lenses.length === 2 && lenses.every((lens) => /\bup · [\d.]+ m?s · \d+ tools\b/.test(lens)) && lenses;
      },
      90_000,
    ).catch(async (error: unknown) => {
      await shot(page, 'codelens-not-up.png');
      throw new Error(`${String(error)}; lenses: ${JSON.stringify(await ourLenses(page))}`);
    });
    for (const lens of upLenses) assert.match(lens, /up · [\d.]+ m?s · \d+ tools \| Ping \| Reconnect \| Show Log\b/, lens);
    await shot(page, 'codelens-up.png');

    // The hover on a server's name: the tree tooltip's details.
    const name = page.locator('.monaco-editor .view-line span', { hasText: /^"everything"$/ }).first();
    await name.hover();
    const hover = page.locator('.monaco-hover:visible', { hasText: 'everything' }).first();
    await hover.waitFor({ state: 'visible', timeout: 15_000 });
    const hoverText = await hover.innerText();
    assert.match(hoverText, /everything — up/);
    assert.match(hoverText, /tools: \d+ tools/);
    assert.match(hoverText, /stdio: node /);
    assert.match(hoverText, /Ping · Reconnect · Show Log/);
    await readmeShot(page, 'codelens-hover.png');
    await page.keyboard.press('Escape');
    await page.mouse.move(5, 5);

    // Live: the HTTP server goes away, its lens turns down without touching the file; the stdio one stays up.
    await remote?.stop();
    const downLenses = await waitFor(
      'the remote lens down, the stdio one still up',
      async () => {
        const lenses = await ourLenses(page);
        return lenses.length === 2 && /\bup\b/.test(lenses[0] ?? '') && /\bdown\b/.test(lenses[1] ?? '') && lenses;
      },
      60_000,
    ).catch(async (error: unknown) => {
      await shot(page, 'codelens-not-down.png');
      throw new Error(`${String(error)}; lenses: ${JSON.stringify(await ourLenses(page))}`);
    });
    assert.match(downLenses[1] ?? '', /down · (unreachable|HTTP \d+|timed out)/);
    await readmeShot(page, 'codelens.png');

    // The lens's Ping acts on that server: the status bar says what the probe answered.
    const everythingLens = page.locator('.monaco-editor .codelens-decoration', { hasText: 'Show Log' }).first();
    await everythingLens.locator('a', { hasText: /^Ping$/ }).click();
    await page
      .locator('.part.statusbar .statusbar-item', { hasText: /everything: (ping|server\/discover) ok/ })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    await shot(page, 'codelens-ping.png');

    // One setting turns every lens off, and back on.
    writeWorkspaceSettings(workspace, { 'mcpHealth.codeLens.enabled': false });
    await waitFor('no MCP Health lens left', async () => (await ourLenses(page)).length === 0, 30_000).catch(async (error: unknown) => {
      await shot(page, 'codelens-not-off.png');
      throw new Error(`${String(error)}; lenses: ${JSON.stringify(await ourLenses(page))}`);
    });
    await name.hover();
    await page.waitForTimeout(1_500);
    assert.equal(await page.locator('.monaco-hover:visible', { hasText: 'Show Log' }).count(), 0, 'no hover either');
    await page.mouse.move(5, 5);
    await shot(page, 'codelens-off.png');
    writeWorkspaceSettings(workspace, {});
    await waitFor('the lenses back', async () => (await ourLenses(page)).length === 2, 30_000);
  });
});
