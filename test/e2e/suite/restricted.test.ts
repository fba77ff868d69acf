// The same fixture opened in Restricted Mode: servers from workspace files are listed but never started or contacted.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ProbeResult } from '../../../src/core/model';
import type { McpHealthApi } from '../../../src/vscode/api';
import { requestScreenshot } from '../harness/screenshots';
import { activateExtension, byName, childPids, commandLine, sleep, waitFor } from './util';

const STARTABLE = ['everything', 'crashing', 'with-token'];

export function defineRestrictedTests(): void {
  describe('MCP Health in Restricted Mode', function () {
    let api: McpHealthApi;

    before(async function () {
      assert.equal(vscode.workspace.isTrusted, false, 'this suite needs an untrusted workspace');
      ({ api } = await activateExtension());
      await waitFor('the fixture servers to be discovered', () => STARTABLE.every((name) => byName(api, name)));
    });

    it('lists workspace servers as not started and says why', async function () {
      for (const name of STARTABLE) {
        assert.equal(byName(api, name)?.state, 'untrusted', name);
      }
      assert.equal(byName(api, 'broken')?.state, 'config-error');
      assert.match(String(api.treeView.message), /Restricted Mode/);
      const everything = byName(api, 'everything');
      assert.ok(everything);
      api.flushViews();
      const item = api.tree.getTreeItem(`server:${everything.config.id}`) as vscode.TreeItem;
      assert.match(String(item.description), /not started \(Restricted Mode\)/);
      assert.doesNotMatch(String(item.contextValue), /\bmonitored\b/, 'no Ping/Reconnect actions');
      const details = ((await api.tree.getChildren(`server:${everything.config.id}`)) ?? []).map(
        (element) => api.tree.getTreeItem(element) as vscode.TreeItem,
      );
      assert.match(String(details.find((detail) => detail.label === 'why')?.description), /trust the workspace/);
    });

    it('starts no process and probes nothing, even when asked to ping', async function () {
      const results = await vscode.commands.executeCommand<ReadonlyMap<string, ProbeResult>>('mcpHealth.pingAll');
      for (const name of STARTABLE) {
        assert.equal(results.has(byName(api, name)?.config.id ?? ''), false, `${name} was not probed`);
      }
      // Give a wrongly started server time to show up before checking for it.
      await sleep(3000);
      const spawned = childPids(process.pid)
        .map(commandLine)
        .filter((line) => /server-everything|fault-server/.test(line));
      assert.deepEqual(spawned, []);
      for (const name of STARTABLE) {
        assert.equal(byName(api, name)?.pid, null, `${name} has no process`);
        assert.equal(byName(api, name)?.stats.totals.sent, 0, `${name} was never probed`);
      }
      await vscode.commands.executeCommand('mcpHealth.servers.focus');
      await api.treeView.reveal(`server:${byName(api, 'everything')?.config.id}`, { expand: true, select: true });
      await sleep(500);
      await requestScreenshot('restricted');
    });
  });
}
