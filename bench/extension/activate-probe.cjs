// Loads a bundled extension in plain Node with the fake `vscode` injected, times require + activate(), and (when asked)
// how long until the status bar first shows every local server settled. One run per process: a cold module cache.
// Usage: node activate-probe.cjs '<json: {bundle, extensionPath, workspaceFolder, storageDir, expectServers, waitMs}>'
'use strict';
const Module = require('node:module');
const { performance } = require('node:perf_hooks');
const { createFakeVscode, createContext, statusBarHistory } = require('./fake-vscode.cjs');

async function main() {
  const options = JSON.parse(process.argv[2]);
  // The user clicks Allow on the consent notification at once: the figure is MCP Health's, not a person's reaction time.
  const fake = createFakeVscode({ workspaceFolder: options.workspaceFolder, answer: options.expectServers > 0 ? 'Allow' : undefined });
  const fakeId = require.resolve('./fake-vscode.cjs') + '#vscode';
  const originalResolve = Module._resolveFilename;
  Module._resolveFilename = function resolve(request, ...rest) {
    return request === 'vscode' ? fakeId : originalResolve.call(this, request, ...rest);
  };
  require.cache[fakeId] = { id: fakeId, filename: fakeId, loaded: true, exports: fake };
  const packageJSON = require(require('node:path').join(options.extensionPath, 'package.json'));
  const context = createContext({ extensionPath: options.extensionPath, storageDir: options.storageDir, packageJSON });

  const beforeRequire = performance.now();
  const extension = require(options.bundle);
  const beforeActivate = performance.now();
  const api = extension.activate(context);
  const afterActivate = performance.now();

  const result = { requireMs: beforeActivate - beforeRequire, activateMs: afterActivate - beforeActivate, firstStatus: null };
  if (options.expectServers > 0) {
    // The documented API other extensions get (the fake context is not in Test mode): read-only server snapshots.
    if (!api || typeof api.servers !== 'function')
      throw new Error('activate() returned no servers() API: the probe no longer matches the extension');
    const list = () => api.servers();
    // 'starting' is a stdio server's first start still within its budget: it spins in the status bar, not yet settled.
    const settled = (s) => !['idle', 'starting', 'connecting'].includes(s.state);
    const deadline = afterActivate + options.waitMs;
    let allSettledAt = null;
    while (performance.now() < deadline) {
      const servers = list();
      if (servers.length >= options.expectServers && servers.every(settled)) {
        allSettledAt = performance.now();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // The status bar renders after a short coalescing delay: wait for the text that reflects the settled registry.
    const up = list().filter((s) => s.state === 'up').length;
    const wanted = `MCP ${up}/${options.expectServers}`;
    while (performance.now() < deadline && !statusBarHistory.some((entry) => entry.text.includes(wanted))) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const shown = statusBarHistory.find((entry) => entry.text.includes(wanted));
    // The first text that counts every local server, whatever their state (starting ones spin).
    const countsEveryServer = new RegExp(`MCP \\d+/${options.expectServers}$`);
    const listed = statusBarHistory.find((entry) => countsEveryServer.test(entry.text));
    result.firstStatus = {
      listedMs: listed ? listed.t - beforeActivate : null,
      listedText: listed ? listed.text : null,
      states: list().map((s) => s.state),
      registrySettledMs: allSettledAt === null ? null : allSettledAt - beforeActivate,
      statusBarMs: shown ? shown.t - beforeActivate : null,
      statusBarText: shown ? shown.text : (statusBarHistory.at(-1)?.text ?? null),
    };
  }
  await extension.deactivate();
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`activate probe failed: ${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
