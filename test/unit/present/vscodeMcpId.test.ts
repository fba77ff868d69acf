import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerConfig, SourceRef } from '../../../src/core/model';
import { serverConfig } from '../../helpers/serverConfig';
import { isVsCodeSource, vscodeMcpServerId } from '../../../src/present/vscodeMcpId';

function config(name: string, source: Partial<SourceRef> & Pick<SourceRef, 'file'>): ServerConfig {
  return serverConfig(name, { source: { line: 1, column: 1, folder: undefined, ...source } });
}

void describe("VS Code's own server ids", () => {
  const folders = ['/work/a', '/work/b'];

  void it('workspace folder N: mcp.config.wsN.<name>, from .vscode/mcp.json and .vscode/settings.json', () => {
    assert.equal(vscodeMcpServerId(config('fs', { file: '/work/b/.vscode/mcp.json', folder: '/work/b' }), folders), 'mcp.config.ws1.fs');
    assert.equal(
      vscodeMcpServerId(config('git', { file: '/work/a/.vscode/settings.json', format: 'vscode-settings' }), folders),
      'mcp.config.ws0.git',
    );
  });

  void it('user profile: mcp.config.usrlocal.<name>', () => {
    assert.equal(
      vscodeMcpServerId(config('memory', { file: '/home/u/.config/Code/User/mcp.json', scope: 'user' }), folders),
      'mcp.config.usrlocal.memory',
    );
  });

  void it('none for files VS Code does not run itself', () => {
    const devcontainer = config('dc', { file: '/work/a/.devcontainer/devcontainer.json' });
    assert.equal(isVsCodeSource(devcontainer), false);
    assert.equal(vscodeMcpServerId(devcontainer, folders), undefined);
    assert.equal(vscodeMcpServerId(config('c', { file: '/work/a/.cursor/mcp.json', format: 'cursor' }), folders), undefined);
    assert.equal(vscodeMcpServerId(config('gone', { file: '/elsewhere/.vscode/mcp.json' }), folders), undefined, 'folder not open');
  });
});
