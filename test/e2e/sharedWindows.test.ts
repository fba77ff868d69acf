// Issue 15 in the real VS Code (code-server), one server for the whole file:
// - "Restart in VS Code" restarts VS Code's own process for a .vscode/mcp.json server (its pid changes) and leaves
//   MCP Health's own connection to that server alone (our child's pid unchanged);
// - one copy per machine: three windows (three pages on three workspaces) sharing two user-level stdio servers run
//   exactly two server processes; closing the leading window's page leaves exactly two after the hand-over.
// Every fixture server appends its pid to a file (counting launcher) and stays alive until told to stop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './harness/browser';
import { clickNotificationButton, consentQuestion } from './harness/notifications';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { repoRoot } from './harness/paths';
import { workbenchUrl } from './harness/workbenchUrl';
import { pick, runCommand } from './harness/quickInput';
import { isAlive } from '../helpers/processes';
import { waitFor } from '../helpers/wait';

const screenshots = path.join(repoRoot, 'test-results', 'shared-windows');
const launcher = path.join(repoRoot, 'test', 'integration', 'mcp', 'peers', 'counting-launcher.mjs');
const faultServer = path.join(repoRoot, 'test', 'fixtures', 'servers', 'fault-server.mjs');

function pids(file: string): number[] {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function server(pidFile: string): { type: string; command: string; args: string[] } {
  return { type: 'stdio', command: 'node', args: [launcher, pidFile, faultServer, '--transport', 'stdio', '--fault', 'none'] };
}

async function treeText(page: Page): Promise<string> {
  return (await page.locator('.part.sidebar .monaco-list-row').allInnerTexts()).join('\n');
}

describe("MCP Health across windows and beside VS Code's own MCP client", { timeout: 420_000 }, () => {
  let codeServer: CodeServer | undefined;
  let workbench: Workbench | undefined;
  let root: string;
  let userPids: string;
  let probePids: string;
  const pages: Page[] = [];

  before(async () => {
    fs.mkdirSync(screenshots, { recursive: true });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-shared-e2e-'));
    userPids = path.join(root, 'user-server-pids');
    probePids = path.join(root, 'vscode-probe-pids');
    for (const name of ['ws1', 'ws2', 'ws3']) fs.mkdirSync(path.join(root, name, '.vscode'), { recursive: true });
    // Window 1 has a workspace server that both MCP Health and VS Code's own client run; the others an empty file
    // (it activates MCP Health, as a real project's config would).
    fs.writeFileSync(
      path.join(root, 'ws1', '.vscode', 'mcp.json'),
      JSON.stringify({ servers: { 'vsc-probe': server(probePids) } }, null, 2),
    );
    for (const name of ['ws2', 'ws3']) fs.writeFileSync(path.join(root, name, '.vscode', 'mcp.json'), '{ "servers": {} }\n');
    codeServer = await startCodeServer({
      linkedExtensions: [repoRoot],
      userSettings: { 'security.workspace.trust.enabled': false, 'mcpHealth.discovery.includeUserConfigs': true },
    });
    // Two user-level servers in the user data dir's mcp.json, which every window of this code-server reads.
    fs.writeFileSync(
      path.join(codeServer.userDataDir, 'User', 'mcp.json'),
      JSON.stringify({ servers: { 'shared-a': server(userPids), 'shared-b': server(userPids) } }, null, 2),
    );
    workbench = await launchWorkbenchBrowser();
  });

  after(async () => {
    await workbench?.close();
    await codeServer?.stop();
    // Anything still alive was started for this test (its pid is in our files): end it.
    for (const pid of [...pids(userPids), ...pids(probePids)]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function openWindow(workspace: string): Promise<Page> {
    const page = pages.length === 0 ? workbench!.page : await workbench!.context.newPage();
    pages.push(page);
    await page.goto(workbenchUrl(codeServer!, path.join(root, workspace)));
    await waitForWorkbench(page, 90_000);
    await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
    return page;
  }

  it('window 1 leads: it runs the two user-level servers and its own workspace server', async () => {
    const page = await openWindow('ws1');
    // MCP Health is installed as a user has it: nothing starts before the user allows it, once, for every window.
    await clickNotificationButton(page, consentQuestion, 'Allow', 60_000);
    await waitFor('two user-level servers running', () => pids(userPids).filter(isAlive).length === 2, 90_000);
    await waitFor('the workspace server running', () => pids(probePids).filter(isAlive).length === 1, 60_000);
    await waitFor('the tree shows shared-a up', async () => /shared-a\s*up/.test(await treeText(page)), 60_000);
  });

  it('"Restart in VS Code" restarts VS Code\'s own process for the server and leaves ours alone', async () => {
    const page = pages[0]!;
    const [ours] = pids(probePids);
    assert.ok(ours !== undefined && isAlive(ours));
    // Show VS Code Output first, while nothing else has opened that channel: the Output view switches to VS Code's
    // own log of this server.
    await runCommand(page, 'MCP Health: Show VS Code Output');
    await pick(page, 'vsc-probe');
    await waitFor(
      "the Output view shows VS Code's channel for vsc-probe",
      async () => {
        const selected = await page.locator('.part.panel select.monaco-select-box').evaluateAll((boxes) =>
          // Runs in the page; this project's tsconfig has no DOM types, hence the structural cast.
          boxes.map(
            (box) =>
              (box as unknown as { selectedOptions: ArrayLike<{ textContent: string | null }> }).selectedOptions[0]?.textContent ?? '',
          ),
        );
        return selected.some((text) => /MCP: vsc-probe/.test(text));
      },
      30_000,
    );
    assert.equal(pids(probePids).length, 1, 'showing the output starts nothing');
    // VS Code keeps its own copy stopped until asked: the first restart starts it.
    await runCommand(page, 'MCP Health: Restart in VS Code');
    await pick(page, 'vsc-probe');
    await waitFor("VS Code's own process started", () => pids(probePids).length === 2 && pids(probePids).every(isAlive), 60_000);
    const vscodeFirst = pids(probePids)[1]!;
    await runCommand(page, 'MCP Health: Restart in VS Code');
    await pick(page, 'vsc-probe');
    await waitFor("VS Code's process replaced", () => pids(probePids).length === 3 && !isAlive(vscodeFirst), 60_000);
    const vscodeSecond = pids(probePids)[2]!;
    assert.ok(isAlive(vscodeSecond), "VS Code's new process runs");
    assert.notEqual(vscodeSecond, vscodeFirst, "VS Code's pid changed");
    assert.ok(isAlive(ours), "MCP Health's own child is untouched");
    assert.deepEqual(pids(probePids).filter(isAlive).sort(), [ours, vscodeSecond].sort(), 'no other copy started');
    await page.screenshot({ path: path.join(screenshots, 'restart-in-vscode.png') });
  });

  it('three windows share the two user-level servers: exactly two processes', async () => {
    const leaderPids = pids(userPids).filter(isAlive);
    const followers = [await openWindow('ws2'), await openWindow('ws3')];
    for (const page of followers) {
      await waitFor(
        'a follower shows the leader status',
        async () => /shared-a\s*up.*in another window/.test(await treeText(page)),
        90_000,
      );
    }
    await followers[0]!.screenshot({ path: path.join(screenshots, 'follower.png') });
    assert.deepEqual(pids(userPids).filter(isAlive).sort(), leaderPids.sort(), "still the leader's two, nothing else started");
    assert.equal(pids(userPids).length, 2, 'no follower ever started a copy');
  });

  it('closing the leading window hands over: exactly two processes again', async () => {
    const before = pids(userPids).filter(isAlive);
    await pages[0]!.close();
    // Bounded poll for the hand-over: the old leader's servers end, a follower starts its own two.
    await waitFor('the hand-over', () => before.every((pid) => !isAlive(pid)) && pids(userPids).filter(isAlive).length === 2, 120_000);
    const after = pids(userPids).filter(isAlive);
    assert.equal(after.length, 2);
    assert.ok(
      after.every((pid) => !before.includes(pid)),
      'the new leader runs its own copies',
    );
    // The processes run as soon as the new leader starts them; its tree re-renders a round trip later. Read the views
    // until they settle (bounded), then require exactly one follower among the two.
    const followersShown = async () =>
      (await Promise.all(pages.slice(1).map((page) => treeText(page)))).filter((text) => /in another window/.test(text)).length;
    await waitFor('the views show one leader and one follower', async () => (await followersShown()) === 1, 30_000).catch(() => undefined);
    assert.equal(await followersShown(), 1, 'one window leads, one follows');
    assert.equal(pids(userPids).filter(isAlive).length, 2, 'still exactly two processes');
    await pages[1]!.screenshot({ path: path.join(screenshots, 'after-handover.png') });
  });

  it("the leading window's extension host is killed (SIGKILL): still exactly two processes after the take-over", async () => {
    const before = pids(userPids).filter(isAlive);
    const host = parentOf(before[0]!);
    assert.equal(parentOf(before[1]!), host, 'both servers are children of one extension host');
    assert.match(
      commandLine(host),
      /code-server|extensionHost|bootstrap-fork/,
      `the parent is code-server's extension host: ${commandLine(host)}`,
    );
    process.kill(host, 'SIGKILL');
    // Its servers go with it (stdin EOF) or are ended by the next leader; the other window takes over. The killed
    // window's host may also be restarted by the workbench and elect again: either way two must run, not four.
    await waitFor(
      'the take-over after a crash',
      () => before.every((pid) => !isAlive(pid)) && pids(userPids).filter(isAlive).length === 2,
      120_000,
    );
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      assert.ok(pids(userPids).filter(isAlive).length <= 2, `never more than two: ${pids(userPids).filter(isAlive).join(',')}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(pids(userPids).filter(isAlive).length, 2);
  });
});

function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}
