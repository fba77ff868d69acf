// Child process of lazyParsers.test.ts: loads a built dist/extension.js in plain Node with the bench's fake `vscode`,
// activates it, and reports which lazily loaded parser files were required at activation and after discovery.
// Usage: node load-bundle.cjs '<json: {extensionPath, workspaceFolder, storageDir, expectNames, expectFiles, waitMs, deactivateAtOnce, commandsAtOnce}>'
// deactivateAtOnce: deactivate() in the same tick as activate(), before the deferred start could run.
'use strict';
const Module = require('node:module');
const path = require('node:path');
const { createFakeVscode, createContext } = require('../../../bench/extension/fake-vscode.cjs');

async function main() {
  const options = JSON.parse(process.argv[2]);
  const fake = createFakeVscode({ workspaceFolder: options.workspaceFolder });
  const fakeId = require.resolve('../../../bench/extension/fake-vscode.cjs') + '#vscode';
  const originalResolve = Module._resolveFilename;
  Module._resolveFilename = function resolve(request, ...rest) {
    return request === 'vscode' ? fakeId : originalResolve.call(this, request, ...rest);
  };
  require.cache[fakeId] = { id: fakeId, filename: fakeId, loaded: true, exports: fake };
  // What the extension logs, and its commands, so a command can be run before the deferred start.
  const logLines = [];
  const commands = new Map();
  const createOutputChannel = fake.window.createOutputChannel;
  const registerCommand = fake.commands.registerCommand;
  fake.window.createOutputChannel = (...args) => {
    const channel = createOutputChannel(...args);
    for (const level of ['trace', 'debug', 'info', 'warn', 'error']) channel[level] = (message) => logLines.push(`${level} ${message}`);
    return channel;
  };
  fake.commands.registerCommand = (id, handler) => {
    commands.set(id, handler);
    return registerCommand(id, handler);
  };
  const packageJSON = require(path.join(options.extensionPath, 'package.json'));
  const context = createContext({ extensionPath: options.extensionPath, storageDir: options.storageDir, packageJSON });
  const lazyDir = path.join(options.extensionPath, 'dist', 'lazy');
  const lazyLoaded = () => Object.keys(require.cache).filter((file) => file.startsWith(lazyDir + path.sep)).map((file) => path.basename(file)).sort();

  const extension = require(path.join(options.extensionPath, 'dist', 'extension.js'));
  const api = extension.activate(context);
  const atActivation = lazyLoaded();
  // Same tick as activate(), before its deferred start: the command must find everything it needs.
  for (const id of options.commandsAtOnce ?? []) await commands.get(id)();
  if (options.deactivateAtOnce) {
    await extension.deactivate();
    // Long enough for anything activate() left behind (a timer, an immediate, a file read) to show.
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.stdout.write(`RESULT ${JSON.stringify({ atActivation, afterDiscovery: lazyLoaded(), servers: [], logLines })}\n`);
    process.exit(0);
  }
  const deadline = Date.now() + options.waitMs;
  const names = () => api.servers().map((server) => server.name).sort();
  const filesThere = () => (options.expectFiles ?? []).every((file) => require('node:fs').existsSync(file));
  while (Date.now() < deadline && !(options.expectNames.every((name) => names().includes(name)) && filesThere())) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const result = { atActivation, afterDiscovery: lazyLoaded(), servers: api.servers().map((server) => ({ name: server.name, state: server.state })), logLines };
  await extension.deactivate();
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((error) => {
  process.stderr.write(`load-bundle failed: ${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
