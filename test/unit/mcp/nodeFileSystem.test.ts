import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeFileSystem } from '../../../src/mcp/nodeFileSystem';
import { discover } from '../../../src/core/config/discover';

void describe('nodeFileSystem', () => {
  let root = '';
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'mcp-health-config-'));
    await mkdir(join(root, 'proj', '.vscode'), { recursive: true });
    await mkdir(join(root, 'proj', '.continue', 'mcpServers', 'nested.yaml'), { recursive: true });
    await writeFile(join(root, 'proj', '.vscode', 'mcp.json'), '{ "servers": { "s": { "command": "node" } } }');
    await writeFile(join(root, 'big.json'), Buffer.alloc(2048, 0x20));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  void it('reads files, reports absence as undefined, lists only files, and refuses oversize files', async () => {
    const fs = createNodeFileSystem(1024);
    assert.match((await fs.readFile(join(root, 'proj', '.vscode', 'mcp.json'))) ?? '', /"servers"/);
    assert.equal(await fs.readFile(join(root, 'missing.json')), undefined);
    assert.equal(await fs.readFile(join(root, 'proj', '.vscode', 'mcp.json', 'below-a-file')), undefined);
    assert.equal(await fs.readDir(join(root, 'nowhere')), undefined);
    assert.deepEqual(await fs.readDir(join(root, 'proj', '.vscode')), ['mcp.json']);
    assert.deepEqual(await fs.readDir(join(root, 'proj', '.continue', 'mcpServers')), []);
    await assert.rejects(fs.readFile(join(root, 'big.json')), /file is 2048 bytes, over the 1024 bytes limit; not read$/);
    await assert.rejects(fs.readFile(join(root, 'proj')), /is a folder/);
  });

  void it('backs discovery end to end', async () => {
    const result = await discover(
      {
        workspaceFolders: [join(root, 'proj')],
        userHome: join(root, 'home'),
        platform: process.platform,
        env: {},
        includeUser: true,
      },
      createNodeFileSystem(),
    );
    assert.deepEqual(
      result.servers.map((s) => s.id),
      [`${join(root, 'proj', '.vscode', 'mcp.json')}#s`],
    );
    assert.deepEqual(result.diagnostics, []);
  });
});
