// Consent, proven in a real VS Code (code-server) with MCP Health installed as a user has it (linked into the
// extensions dir: ExtensionMode.Production, notifications visible), beside a second extension that reads its exports.
// A fresh workspace of stdio servers that record each start: nothing starts before the user clicks Allow in the real
// notification; then they start; editing one server's args makes only that one wait for consent again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { clickNotificationButton, findNotification } from './harness/notifications';
import { repoRoot } from './harness/paths';
import { workbenchUrl } from './harness/workbenchUrl';
import { isAlive } from '../helpers/processes';
import { sleep, waitFor } from '../helpers/wait';

const screenshots = path.join(repoRoot, 'test-results', 'consent');
const recorder = path.join(repoRoot, 'test', 'fixtures', 'servers', 'start-recorder.mjs');
const probeExtension = path.join(repoRoot, 'test', 'fixtures', 'api-probe-extension');
const SECRET = 'sk-consent-e2e-7f3a9c1d5e8b2046';
const NAMES = ['alpha', 'beta', 'gamma'] as const;
const NO_START_WATCH_MS = 20_000;

function serversJson(args: Record<string, readonly string[]>, record: string): string {
  const servers = Object.fromEntries(
    NAMES.map((name) => [
      name,
      {
        type: 'stdio',
        command: 'node',
        args: [recorder, record, name, ...(args[name] ?? [])],
        // A secret value the other extension must never see through MCP Health's exports.
        env: { API_TOKEN: SECRET },
      },
    ]),
  );
  return `${JSON.stringify({ servers }, null, 2)}\n`;
}

function starts(record: string): Array<{ name: string; pid: number }> {
  if (!fs.existsSync(record)) return [];
  return fs
    .readFileSync(record, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, pid] = line.split(' ');
      return { name: name ?? '', pid: Number(pid) };
    });
}

async function treeRows(page: Page): Promise<string> {
  return (await page.locator('.part.sidebar .monaco-list-row').allInnerTexts()).join('\n');
}

describe('consent before the first start (code-server, Production mode)', { timeout: 300_000 }, () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-consent-'));
  const workspace = path.join(root, 'workspace');
  const record = path.join(root, 'starts.txt');
  const probeOut = path.join(root, 'api-probe.json');
  const mcpJson = path.join(workspace, '.vscode', 'mcp.json');

  before(() => {
    fs.mkdirSync(path.dirname(mcpJson), { recursive: true });
    fs.writeFileSync(mcpJson, serversJson({}, record));
    fs.mkdirSync(screenshots, { recursive: true });
  });

  after(async () => {
    await workbench?.close();
    await server?.stop();
    // The servers are children of the extension host, gone with code-server's group; these are only ours anyway.
    for (const { pid } of starts(record)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('starts nothing before Allow, starts everything after, and asks again only for the edited server', async () => {
    server = await startCodeServer({
      linkedExtensions: [repoRoot, probeExtension],
      userSettings: { 'security.workspace.trust.enabled': false, 'mcpHealth.discovery.includeUserConfigs': false },
      env: { MCP_HEALTH_API_PROBE_OUT: probeOut, MCP_HEALTH_API_PROBE_SECRET: SECRET },
    });
    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;
    await page.goto(workbenchUrl(server, workspace));
    await waitForWorkbench(page, 90_000);

    const question = /MCP Health found 3 servers in \.vscode\/mcp\.json\. Start watching them\?/;
    const toast = await findNotification(page, question, 90_000).catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(screenshots, 'consent-no-notification.png') });
      const probe = fs.existsSync(probeOut) ? fs.readFileSync(probeOut, 'utf8') : 'no probe output';
      throw new Error(`${String(error)}\nwhat the API probe saw: ${probe}`);
    });
    const shownAt = Date.now();
    for (const label of ['Allow', 'Review…', 'Not Now']) {
      assert.ok(await toast.locator('.monaco-button', { hasText: label }).first().isVisible(), `button ${label}`);
    }
    await page.screenshot({ path: path.join(screenshots, 'consent-notification.png') });

    await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
    await waitFor(
      'three rows waiting for consent',
      async () => {
        const rows = await treeRows(page);
        return NAMES.every((name) => new RegExp(`^${name}\\s*waiting for consent`, 'm').test(rows)) && rows;
      },
      30_000,
    );

    // The Review picker, opened from the command palette while the notification stays open.
    await page.keyboard.press('F1');
    await page.keyboard.type('MCP Health: Review Servers Waiting for Consent');
    await page.keyboard.press('Enter');
    const pickerRows = page.locator('.quick-input-widget .monaco-list-row');
    await pickerRows.filter({ hasText: 'gamma' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    const pickerText = (await pickerRows.allInnerTexts()).join('\n');
    await page.screenshot({ path: path.join(screenshots, 'consent-review.png') });
    for (const name of NAMES) assert.match(pickerText, new RegExp(name));
    assert.match(pickerText, /\[watch\] node .*start-recorder\.mjs/);
    assert.ok(!pickerText.includes(SECRET));
    await page.keyboard.press('Escape');

    const waited = NO_START_WATCH_MS - (Date.now() - shownAt);
    if (waited > 0) await sleep(waited);
    assert.deepEqual(starts(record), [], `no server process before consent (watched ${NO_START_WATCH_MS / 1000} s)`);

    await clickNotificationButton(page, question, 'Allow');
    const first = await waitFor(
      'all three servers started',
      () => {
        const seen = starts(record);
        return seen.length >= 3 && seen;
      },
      60_000,
    );
    assert.deepEqual(first.map((start) => start.name).sort(), [...NAMES]);
    await waitFor(
      'all three up in the tree',
      async () => {
        const rows = await treeRows(page);
        return NAMES.every((name) => new RegExp(`^${name}\\s*up`, 'm').test(rows));
      },
      60_000,
    );
    await page.screenshot({ path: path.join(screenshots, 'consent-allowed.png') });

    // A changed definition asks again: edit beta's args only.
    fs.writeFileSync(mcpJson, serversJson({ beta: ['--max-lifetime-ms', '600001'] }, record));
    await waitFor('beta waiting for consent again', async () => /^beta\s*waiting for consent/m.test(await treeRows(page)), 60_000);
    // The question says what changed, and shows the env names with secret values masked (issue 19 §2).
    await findNotification(
      page,
      /MCP Health found 1 server in \.vscode\/mcp\.json\. Start watching it\? beta: Changed since you allowed it: arguments changed\. Environment: API_TOKEN=\*\*\*/,
      30_000,
    );
    const betaBefore = first.find((start) => start.name === 'beta');
    await waitFor('the old beta process gone', () => betaBefore !== undefined && !isAlive(betaBefore.pid), 20_000);
    await sleep(5_000);
    await page.screenshot({ path: path.join(screenshots, 'consent-changed.png') });
    assert.deepEqual(starts(record), first, 'nothing started again: not beta (no consent), not alpha/gamma (kept)');
    for (const name of ['alpha', 'gamma']) {
      const start = first.find((entry) => entry.name === name);
      assert.ok(start && isAlive(start.pid), `${name} still runs as pid ${start?.pid}`);
    }
    const rows = await treeRows(page);
    assert.match(rows, /^alpha\s*up/m);
    assert.match(rows, /^gamma\s*up/m);

    // Withdraw Consent from the command palette: alpha stops and waits again; gamma is untouched.
    await page.keyboard.press('F1');
    await page.keyboard.type('MCP Health: Withdraw Consent');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'gamma' }).first().waitFor({ state: 'visible', timeout: 15_000 });
    await page.keyboard.type('alpha');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'gamma' }).first().waitFor({ state: 'hidden', timeout: 5_000 });
    await page.keyboard.press('Enter');
    const alpha = first.find((start) => start.name === 'alpha');
    const gamma = first.find((start) => start.name === 'gamma');
    await waitFor('alpha stopped after consent was withdrawn', () => alpha !== undefined && !isAlive(alpha.pid), 20_000);
    await waitFor('alpha waiting for consent again', async () => /^alpha\s*waiting for consent/m.test(await treeRows(page)), 20_000);
    assert.ok(gamma && isAlive(gamma.pid), 'gamma keeps running');
    assert.deepEqual(starts(record), first, 'withdrawing starts nothing');
  });

  it('gives another extension a read-only, redacted API: no secret, no registry, nothing that stores an input', async () => {
    type ProbeReport = {
      probeMode: number;
      names: string[];
      servers: Array<{ name: string; state: string; source: { file: string } }> | null;
      secretSeen: boolean;
      hasRegistry: boolean;
      hasStoreInput: boolean;
    };
    const read = (): ProbeReport | undefined =>
      fs.existsSync(probeOut) ? (JSON.parse(fs.readFileSync(probeOut, 'utf8')) as ProbeReport) : undefined;
    await waitFor('the probe extension to have written what it saw', () => read() !== undefined, 30_000);
    // It rewrites on every change; by now all three servers are known, whatever the API looks like.
    const seen = read() as ProbeReport;
    assert.equal(seen.probeMode, 1, 'the probe runs as an ordinary installed extension (ExtensionMode.Production)');
    assert.equal(seen.secretSeen, false, 'the secret value of a server env is reachable through the exports');
    assert.equal(seen.hasRegistry, false, 'the registry is exported');
    assert.equal(seen.hasStoreInput, false, 'storeInput is exported');
    const topLevel = seen.names.filter((name) => !name.includes('.'));
    assert.deepEqual(topLevel, ['apiVersion:number', 'onDidChange:function', 'servers:function']);
    assert.deepEqual(seen.servers?.map((s) => s.name).sort(), [...NAMES]);
    assert.ok(seen.servers?.every((s) => s.source.file === mcpJson));
  });
});
