// activate() builds only the first paint and the commands; the rest (history read, guard copy, shared servers,
// watchers...) starts right after it returns. Both halves through the built bundle: a deactivate() before the deferred
// start leaves the history file and the storage as they were, and a normal start does what it used to.
// Needs the bundle built first (`node esbuild.js`, as the integration script does).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadBundle } from './loadBundle';

/** Where bench/extension/fake-vscode.cjs puts the storage of the extension, under <scratch>/storage. */
function storagePaths(scratch: string) {
  const storage = path.join(scratch, 'storage');
  return {
    history: path.join(storage, 'workspaceStorage', 'history.json'),
    guardCopy: path.join(storage, 'User', 'globalStorage', 'mcp-health.mcp-health', 'bin', 'mcp-health-guard.js'),
  };
}

function workspaceWithOneServer(scratch: string): string {
  const folder = path.join(scratch, 'workspace');
  fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
  fs.writeFileSync(
    path.join(folder, '.vscode', 'mcp.json'),
    JSON.stringify({ servers: { 'json-server': { command: 'node', args: ['server.js'] } } }),
  );
  return folder;
}

void describe('the deferred start of the extension', { timeout: 60_000 }, () => {
  void it('never runs when deactivate() comes first: the history file is kept byte for byte, nothing is copied', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-deferred-'));
    try {
      const { history, guardCopy } = storagePaths(scratch);
      fs.mkdirSync(path.dirname(history), { recursive: true });
      // Any content: a write by a history that never read the file would replace it with this session alone.
      const before = '{"kept":"from an earlier session"}\n';
      fs.writeFileSync(history, before);
      await loadBundle(workspaceWithOneServer(scratch), scratch, { deactivateAtOnce: true });
      assert.equal(fs.readFileSync(history, 'utf8'), before);
      assert.equal(fs.existsSync(guardCopy), false, 'the guard copy belongs to the deferred start');
      assert.deepEqual(fs.readdirSync(path.dirname(history)), ['history.json']);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  void it('runs after activate() returns: servers discovered, the guard runtime copied, the history written on close', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-deferred-'));
    try {
      const { history, guardCopy } = storagePaths(scratch);
      const result = await loadBundle(workspaceWithOneServer(scratch), scratch, { expectNames: ['json-server'], expectFiles: [guardCopy] });
      assert.ok(
        result.servers.some((server) => server.name === 'json-server'),
        JSON.stringify(result.servers),
      );
      assert.ok(fs.existsSync(guardCopy), 'the stable guard copy is written by the deferred start');
      assert.ok(fs.existsSync(history), 'the history is written on deactivate');
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  void it('is built once when a command needs it before the deferred start ran', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-deferred-'));
    try {
      const { guardCopy } = storagePaths(scratch);
      const result = await loadBundle(workspaceWithOneServer(scratch), scratch, {
        expectNames: ['json-server'],
        expectFiles: [guardCopy],
        commandsAtOnce: ['mcpHealth.resetNotifications'],
      });
      assert.ok(
        result.servers.some((server) => server.name === 'json-server'),
        JSON.stringify(result.servers),
      );
      const once = (pattern: RegExp) => result.logLines.filter((line) => pattern.test(line));
      // One history read, one guard copy, one discovery: a second build would read, copy and watch again.
      assert.equal(once(/^info history: /).length, 1, result.logLines.join('\n'));
      assert.equal(once(/^info guard runtime copied to /).length, 1, result.logLines.join('\n'));
      assert.equal(once(/^info discovered 1 server/).length, 1, result.logLines.join('\n'));
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
