// Issue 13 in the real VS Code (code-server): VS Code's own MCP client runs a server through `mcp-health guard` from
// .vscode/mcp.json. MCP Health never starts a copy of it and shows it as guarded, "guard not running" until VS Code
// starts it, then the guard's own figures. The upstream (not the guard) is killed: the guard process VS Code talks to
// stays the same and alive, the guard brings a new upstream up, VS Code's connection gets a request answered after the
// crash, and MCP Health's tree shows the server guarded, up, with one restart. The entry is guarded by MCP Health's
// own "Guard This Server" from the workbench, so what VS Code runs is exactly what that command writes.
// The upstream fixture appends its pid to a file (counting launcher), so every start is counted.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { GuardReport } from '../../src/core/guardReport';
import { readGuardStatuses } from '../../src/guard/statusChannel';
import { isAlive } from '../helpers/processes';
import { waitFor } from '../helpers/wait';
import { launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { repoRoot } from './harness/paths';
import { workbenchUrl } from './harness/workbenchUrl';

const screenshots = path.join(repoRoot, 'test-results', 'guarded');
const launcher = path.join(repoRoot, 'test', 'integration', 'mcp', 'peers', 'counting-launcher.mjs');
const faultServer = path.join(repoRoot, 'test', 'fixtures', 'servers', 'fault-server.mjs');
const toolCaller = path.join(repoRoot, 'test', 'fixtures', 'tool-caller-extension');
const NAME = 'keeper';

function pids(file: string): number[] {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
}

async function pick(page: Page, label: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(label);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.keyboard.press('Enter');
}

async function treeText(page: Page): Promise<string> {
  return (await page.locator('.part.sidebar .monaco-list-row').allInnerTexts()).join('\n');
}

function requests(status: GuardReport): { count: number; errors: number } {
  const methods = Object.values(status.methods);
  return { count: methods.reduce((sum, m) => sum + m.count, 0), errors: methods.reduce((sum, m) => sum + m.errors, 0) };
}

describe("a guarded server run by VS Code's own MCP client", { timeout: 360_000 }, () => {
  let codeServer: CodeServer | undefined;
  let workbench: Workbench | undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-guarded-e2e-'));
  const workspace = path.join(root, 'ws');
  const upstreamPids = path.join(root, 'upstream-pids');
  const runtime = path.join(root, 'runtime');
  const socketDir = path.join(runtime, 'mcp-health');
  const guardPids: number[] = [];
  const calls = path.join(root, 'tool-calls');
  const mcpJson = path.join(workspace, '.vscode', 'mcp.json');

  /** A tool call through VS Code's own language-model tool API, hence VS Code's own MCP connection to the server. */
  const callTool = async (id: string, message: string): Promise<{ ok: boolean; text?: string; error?: string; name?: string }> => {
    fs.writeFileSync(path.join(calls, 'request'), JSON.stringify({ id, tool: 'echo', input: { message } }));
    const answer = path.join(calls, `answer-${id}.json`);
    try {
      return await waitFor(
        `the answer to tool call ${id}`,
        async () => {
          // Outside a chat request VS Code asks before running an MCP tool ("Run echo"): the user's Yes.
          const dialog = workbench!.page.locator('.monaco-dialog-box', { hasText: 'Run echo' });
          if (await dialog.isVisible()) await dialog.locator('.monaco-button', { hasText: 'Yes' }).first().click();
          return fs.existsSync(answer)
            ? (JSON.parse(fs.readFileSync(answer, 'utf8')) as { ok: boolean; text?: string; error?: string })
            : undefined;
        },
        60_000,
      );
    } catch (error) {
      await workbench?.page.screenshot({ path: path.join(screenshots, `tool-call-${id}-no-answer.png`) });
      const state = path.join(calls, 'state.json');
      throw new Error(
        `${String(error)}; the caller extension says: ${fs.existsSync(state) ? fs.readFileSync(state, 'utf8') : 'nothing (not activated)'}`,
      );
    }
  };

  const guardOf = async (): Promise<GuardReport | undefined> =>
    (await readGuardStatuses(2000, socketDir)).find((status) => status.name === NAME);

  before(() => {
    fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    fs.mkdirSync(screenshots, { recursive: true });
    fs.mkdirSync(calls, { recursive: true });
    // The server as a user has it, unguarded: the test guards it with MCP Health's own "Guard This Server".
    const args = [launcher, upstreamPids, faultServer, '--transport', 'stdio', '--fault', 'none'];
    fs.writeFileSync(mcpJson, `${JSON.stringify({ servers: { [NAME]: { type: 'stdio', command: 'node', args } } }, null, 2)}\n`);
  });

  after(async () => {
    await workbench?.close();
    await codeServer?.stop();
    // Only processes this test started (their pids were recorded here).
    for (const pid of [...pids(upstreamPids), ...guardPids]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is listed, never started by MCP Health, and shows "guard not running" until VS Code starts it', async () => {
    codeServer = await startCodeServer({
      linkedExtensions: [repoRoot, toolCaller],
      userSettings: { 'security.workspace.trust.enabled': false, 'mcpHealth.discovery.includeUserConfigs': false },
      // The guard (forked by VS Code's extension host) and MCP Health read the same runtime directory; so does the test.
      env: { XDG_RUNTIME_DIR: runtime, MCP_HEALTH_TOOL_CALL_DIR: calls },
    });
    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;
    await page.goto(workbenchUrl(codeServer, workspace));
    await waitForWorkbench(page, 90_000);
    await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
    await waitFor('the tree lists the server', async () => (await treeText(page)).includes(NAME), 90_000);

    // Guard This Server, as a user runs it: the command, the server, then Guard in the confirmation.
    const unguarded = fs.readFileSync(mcpJson, 'utf8');
    await runCommand(page, 'MCP Health: Guard This Server');
    await pick(page, NAME);
    const confirm = page.locator('.monaco-dialog-box', { hasText: `Guard "${NAME}"` });
    await confirm.waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: path.join(screenshots, 'guard-this-server-confirm.png') });
    await confirm
      .locator('.monaco-button', { hasText: /^Guard$/ })
      .first()
      .click();
    const entry = await waitFor(
      'the entry rewritten on disk',
      () => {
        const text = fs.readFileSync(mcpJson, 'utf8');
        return text !== unguarded && (JSON.parse(text) as { servers: Record<string, { command: string; args: string[] }> }).servers[NAME];
      },
      30_000,
    );
    // node + MCP Health's stable copy of the guard in its global storage: no npx, no global install, and not the
    // extension's own (versioned) folder, which an update deletes.
    const stable = entry.args[0]!;
    assert.equal(entry.command, 'node');
    assert.match(stable, /[\\/]globalStorage[\\/]mcp-health\.mcp-health[\\/]bin[\\/]mcp-health-guard\.js$/);
    assert.ok(!stable.startsWith(repoRoot), `${stable} is not inside the extension's folder`);
    assert.ok(fs.readFileSync(stable).equals(fs.readFileSync(path.join(repoRoot, 'dist', 'guard.js'))), 'the copy is the bundled guard');
    assert.deepEqual(entry.args.slice(1), [
      'guard',
      '--name',
      NAME,
      '--',
      'node',
      launcher,
      upstreamPids,
      faultServer,
      '--transport',
      'stdio',
      '--fault',
      'none',
    ]);

    // No consent question: nothing is started for a guarded entry, only the guard's socket is read.
    await waitFor(
      'the tree shows the guarded entry without a guard',
      async () => new RegExp(`${NAME}\\s*guarded · guard not running`).test(await treeText(page)),
      90_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    assert.deepEqual(pids(upstreamPids), [], 'MCP Health started no copy of the guarded server');
    await page.screenshot({ path: path.join(screenshots, 'guard-not-running.png') });
  });

  it("VS Code's own client runs it; the upstream is killed; the same guard stays, restarts it, and the tree shows one restart", async () => {
    const { page } = workbench!;
    // VS Code keeps a .vscode/mcp.json server stopped until asked; its restart command (workbench.mcp.restartServer
    // with VS Code's id for the server) starts it.
    await runCommand(page, 'MCP Health: Restart in VS Code');
    await pick(page, NAME);
    const first = await waitFor(
      'VS Code started the guard and its upstream',
      async () => {
        const status = await guardOf();
        return status?.state === 'ready' && status.upstreamPid !== null && pids(upstreamPids).length === 1 && status;
      },
      90_000,
    );
    guardPids.push(first.guardPid);
    assert.equal(first.upstreamPid, pids(upstreamPids)[0], 'the upstream is the fixture the guard started');
    assert.equal(first.restarts, 0);
    // VS Code's client lists the server's tools once started: a real request through its connection.
    const beforeCrash = await waitFor(
      "VS Code's first requests",
      async () => {
        const status = await guardOf();
        return status && requests(status).count > 0 && status;
      },
      60_000,
    );
    await waitFor(
      "the tree shows the guard's figures",
      async () => new RegExp(`${NAME}\\s*guarded · up`).test(await treeText(page)),
      30_000,
    );
    assert.equal(pids(upstreamPids).length, 1, "only VS Code's guard started an upstream: MCP Health started none");
    const beforeCall = await callTool('before', 'before-crash');
    assert.deepEqual(
      [beforeCall.ok, beforeCall.text, beforeCall.error],
      [true, 'Echo: before-crash', undefined],
      'a tool call through VS Code works',
    );

    process.kill(first.upstreamPid!, 'SIGKILL');
    const after = await waitFor(
      'the guard restarted the upstream',
      async () => {
        const status = await guardOf();
        return status?.state === 'ready' && status.restarts === 1 && status.upstreamPid !== first.upstreamPid && status;
      },
      60_000,
    );
    assert.equal(after.guardPid, first.guardPid, "VS Code's server process (the guard) is the same one");
    assert.ok(isAlive(first.guardPid), 'and still running');
    assert.deepEqual(pids(upstreamPids), [first.upstreamPid, after.upstreamPid], 'exactly one new upstream');
    assert.ok(after.upstreamPid !== null && isAlive(after.upstreamPid));

    // After the restart the guard told VS Code the tool list changed; VS Code asks again through the same connection
    // and the new upstream answers it without an error.
    const answered = await waitFor(
      'a request from VS Code answered after the restart',
      async () => {
        const status = await guardOf();
        return status && requests(status).count > requests(beforeCrash).count && status;
      },
      60_000,
    );
    assert.equal(requests(answered).errors, requests(beforeCrash).errors, 'no request failed after the restart');

    // A tool call made after the crash, through VS Code's own connection (vscode.lm.invokeTool), succeeds: answered by
    // the new upstream, with no reconnect by VS Code (the guard's pid is unchanged).
    const afterCall = await callTool('after', 'after-crash');
    assert.deepEqual(
      [afterCall.ok, afterCall.text, afterCall.error],
      [true, 'Echo: after-crash', undefined],
      'the tool call after the crash succeeds',
    );
    const called = await guardOf();
    assert.equal(called?.methods['tools/call']?.count, 2, 'both tool calls went through the guard');
    assert.equal(called?.methods['tools/call']?.errors, 0);
    assert.equal(called?.guardPid, first.guardPid);
    assert.equal(called?.upstreamPid, after.upstreamPid, 'answered by the new upstream');

    const rows = await waitFor(
      'the tree shows one restart',
      async () => {
        const text = await treeText(page);
        return new RegExp(`${NAME}\\s*guarded · up · .*1 restart`).test(text) && text;
      },
      30_000,
    );
    assert.match(rows, new RegExp(`${NAME}\\s*guarded · up`));
    await page.screenshot({ path: path.join(screenshots, 'guarded-one-restart.png') });
    // The tooltip holds the whole line and says where the figures come from.
    await page.locator('.part.sidebar .monaco-list-row', { hasText: NAME }).first().hover();
    const hover = page.locator('.monaco-hover', { hasText: 'inside your client' }).first();
    await hover.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(await hover.innerText(), /guarded · up · .*1 restart · \d+ requests/);
    await page.screenshot({ path: path.join(screenshots, 'guarded-tooltip.png') });
    assert.ok(isAlive(first.guardPid), 'the guard VS Code runs is still alive at the end');
  });

  it("Ping Now and Reconnect on the guarded entry act through its guard: a real round trip, then a restart inside VS Code's connection", async () => {
    const { page } = workbench!;
    const before = await guardOf();
    assert.equal(before?.state, 'ready');
    // Ping: the guard probes its upstream now; the status bar shows that round trip (it used to say "not probed").
    await runCommand(page, 'MCP Health: Ping Now');
    await pick(page, NAME);
    await page
      .locator('.part.statusbar', { hasText: new RegExp(`${NAME}: ping ok · [\\d.]+ (ms|µs|s)`) })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    await page.screenshot({ path: path.join(screenshots, 'guarded-ping.png') });
    // Reconnect: VS Code's server process (the guard) stays; the guard restarts the upstream behind it.
    await runCommand(page, 'MCP Health: Reconnect');
    await pick(page, NAME);
    const restarted = await waitFor(
      'the guard restarted its upstream on Reconnect',
      async () => {
        const status = await guardOf();
        return status?.state === 'ready' && status.restarts === before!.restarts + 1 && status;
      },
      60_000,
    );
    assert.equal(restarted.guardPid, before!.guardPid, 'the same guard process: VS Code did not reconnect');
    assert.notEqual(restarted.upstreamPid, before!.upstreamPid);
    const call = await callTool('reconnected', 'after-reconnect');
    assert.deepEqual([call.ok, call.text, call.error], [true, 'Echo: after-reconnect', undefined], 'a tool call after Reconnect succeeds');
    await waitFor(
      'the tree shows the second restart',
      async () => new RegExp(`${NAME}\\s*guarded · up · .*2 restarts`).test(await treeText(page)),
      30_000,
    );
    await page.screenshot({ path: path.join(screenshots, 'guarded-reconnect.png') });
  });
});
