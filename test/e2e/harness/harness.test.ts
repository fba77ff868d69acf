import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { formatConsoleArgs, isOfflineNoise } from './browser';
import { parseScreenshotRequest, screenshotMarker } from './screenshots';
import { workbenchUrl } from './workbenchUrl';

test('workbench logger output is rendered like mocha printed it', () => {
  assert.equal(formatConsoleArgs(['%c INFO', 'color: #33f', '  %d passing (%s)', 2, '6s']), ' INFO   2 passing (6s)');
  assert.equal(formatConsoleArgs(['%c INFO', 'color: #33f', '    ✔ %s (%dms)', 'runs', 61.7]), ' INFO     ✔ runs (61ms)');
  assert.equal(formatConsoleArgs(['plain', { a: 1 }, 3]), 'plain {"a":1} 3');
  assert.equal(formatConsoleArgs(['100%% done, %s left']), '100% done, %s left');
});

test('screenshot markers round-trip and reject unsafe names', () => {
  assert.equal(parseScreenshotRequest(` INFO ${screenshotMarker('tree-view.1')}`), 'tree-view.1');
  assert.equal(parseScreenshotRequest('[[screenshot:../etc]]'), undefined);
  assert.throws(() => screenshotMarker('../x'));
});

test('workbench URL carries folder or workspace and a remote payload', () => {
  const server = { url: 'http://127.0.0.1:4000', port: 4000 };
  const folderUrl = new URL(workbenchUrl(server, '/w/ws', { extensionDevelopmentPath: '/e', extensionTestsPath: '/e/i.js' }));
  assert.equal(folderUrl.searchParams.get('folder'), '/w/ws');
  assert.deepEqual(JSON.parse(folderUrl.searchParams.get('payload') ?? ''), [
    ['extensionDevelopmentPath', 'vscode-remote://127.0.0.1:4000/e'],
    ['extensionTestsPath', 'vscode-remote://127.0.0.1:4000/e/i.js'],
    ['skipWelcome', 'true'],
  ]);
  const multiRoot = new URL(workbenchUrl(server, '/w/all.code-workspace'));
  assert.equal(multiRoot.searchParams.get('workspace'), '/w/all.code-workspace');
  assert.equal(multiRoot.searchParams.get('payload'), null);
});

test('offline noise is dropped, test output is kept', () => {
  assert.ok(isOfflineNoise('[AgentHost] No signed-in session resolved for resource: https://api.github.com'));
  assert.ok(isOfflineNoise('Failed to load resource: net::ERR_NAME_NOT_RESOLVED'));
  assert.ok(!isOfflineNoise('  2 passing (6s)'));
  assert.ok(!isOfflineNoise('AssertionError [ERR_ASSERTION]: Expected values to be strictly equal'));
});
