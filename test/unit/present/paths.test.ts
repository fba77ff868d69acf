import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayPath, workspaceFolderRefs } from '../../../src/present/paths';

describe('displayPath', () => {
  it('shortens a file under the home folder to ~/..., with either separator', () => {
    assert.equal(displayPath('/home/u/.cursor/mcp.json', '/home/u'), '~/.cursor/mcp.json');
    assert.equal(displayPath('C:\\Users\\u\\.cursor\\mcp.json', 'C:\\Users\\u'), '~\\.cursor\\mcp.json');
    assert.equal(displayPath('/home/u', '/home/u'), '~');
  });

  it('leaves other files alone, including a sibling whose name starts with the home folder', () => {
    assert.equal(displayPath('/home/user2/mcp.json', '/home/u'), '/home/user2/mcp.json');
    assert.equal(displayPath('/etc/mcp.json', '/home/u'), '/etc/mcp.json');
    assert.equal(displayPath('/home/u/mcp.json', ''), '/home/u/mcp.json');
  });
});

describe('workspaceFolderRefs', () => {
  it('keeps only folders on disk, by path and name', () => {
    const folders = [
      { uri: { scheme: 'file', fsPath: '/ws/app' }, name: 'app' },
      { uri: { scheme: 'vscode-remote', fsPath: '/ws/remote' }, name: 'remote' },
      { uri: { scheme: 'file', fsPath: '/ws/lib' }, name: 'lib' },
    ];
    assert.deepEqual(workspaceFolderRefs(folders), [
      { path: '/ws/app', name: 'app' },
      { path: '/ws/lib', name: 'lib' },
    ]);
  });

  it('is empty without an open folder', () => {
    assert.deepEqual(workspaceFolderRefs(undefined), []);
  });
});
