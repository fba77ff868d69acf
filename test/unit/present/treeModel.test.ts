import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigDiagnostic } from '../../../src/core/model';
import {
  buildTree,
  changedElements,
  fileDescription,
  serverElementId,
  serverIdFromElement,
  type TreeModel,
  type TreeNode,
  type WorkspaceFolderRef,
} from '../../../src/present/treeModel';
import { status } from './fixtures';

const APP = '/ws/app';
const LIB = '/ws/lib';
const USER_FILE = '/home/u/.cursor/mcp.json';
const folders: WorkspaceFolderRef[] = [
  { path: APP, name: 'app' },
  { path: LIB, name: 'lib' },
];
const displayPath = (file: string) => file.replace('/home/u', '~');

const inApp = (name: string, line: number, file = `${APP}/.vscode/mcp.json`) =>
  status(name, { config: { source: { file, line, folder: APP, scope: 'workspace' } } });
const inLib = (name: string) => status(name, { config: { source: { file: `${LIB}/.vscode/mcp.json`, folder: LIB } } });
const inUser = (name: string, line = 2) =>
  status(name, { config: { source: { file: USER_FILE, line, format: 'cursor', scope: 'user', folder: undefined } } });

function diagnostic(file: string, overrides: Partial<ConfigDiagnostic> = {}): ConfigDiagnostic {
  return { file, line: 1, column: 1, severity: 'error', message: 'unexpected token', ...overrides };
}

function node(tree: TreeModel, id: string): TreeNode {
  const found = tree.get(id);
  assert.ok(found, `no node ${id}`);
  return found;
}

function labels(tree: TreeModel, ids: readonly string[]): string[] {
  return ids.map((id) => {
    const found = node(tree, id);
    return found.kind === 'group' || found.kind === 'file' ? found.label : found.id;
  });
}

void describe('buildTree', () => {
  void it('groups by workspace folder in folder order, then User last', () => {
    const tree = buildTree([inUser('u1'), inLib('l1'), inApp('a1', 3)], [], folders, displayPath);
    assert.deepEqual(tree.roots, [`group:folder:${APP}`, `group:folder:${LIB}`, 'group:user']);
    assert.deepEqual(labels(tree, tree.roots), ['app', 'lib', 'User']);
    const reversed = buildTree([inUser('u1'), inLib('l1'), inApp('a1', 3)], [], [...folders].reverse(), displayPath);
    assert.deepEqual(labels(reversed, reversed.roots), ['lib', 'app', 'User']);
  });

  void it('lists files by their path relative to the folder, and user files by their display path', () => {
    const tree = buildTree([inApp('a1', 3), inApp('m1', 1, `${APP}/.mcp.json`), inUser('u1')], [], folders, displayPath);
    const appGroup = node(tree, `group:folder:${APP}`);
    assert.deepEqual(labels(tree, appGroup.children), ['.mcp.json', '.vscode/mcp.json']);
    const userGroup = node(tree, 'group:user');
    assert.deepEqual(labels(tree, userGroup.children), ['~/.cursor/mcp.json']);
    const userFile = node(tree, `file:${USER_FILE}`);
    assert.equal(userFile.kind === 'file' && userFile.format, 'cursor');
    assert.equal(userFile.parent, 'group:user');
  });

  void it('orders servers by their line in the file, then name', () => {
    const tree = buildTree([inApp('zeta', 9), inApp('beta', 3), inApp('alpha', 3)], [], folders, displayPath);
    const file = node(tree, `file:${APP}/.vscode/mcp.json`);
    assert.deepEqual(
      file.children,
      ['alpha', 'beta', 'zeta'].map((name) => serverElementId(`${APP}/.vscode/mcp.json#${name}`)),
    );
  });

  void it('links every node to its parent and hangs detail rows under their server', () => {
    const server = inApp('a1', 3);
    const tree = buildTree([server, inUser('u1')], [], folders, displayPath);
    const serverNode = node(tree, serverElementId(server.config.id));
    assert.equal(serverNode.parent, `file:${server.config.source.file}`);
    assert.ok(serverNode.children.length > 0);
    assert.deepEqual(
      serverNode.children,
      serverNode.children.map((id) => {
        const detail = node(tree, id);
        assert.equal(detail.kind, 'detail');
        assert.equal(detail.parent, serverNode.id);
        return `detail:${server.config.id}:${detail.kind === 'detail' ? detail.row.key : ''}`;
      }),
    );
    const visit = (id: string, parent: string | undefined): number => {
      const current = node(tree, id);
      assert.equal(current.parent, parent, id);
      return 1 + current.children.reduce((sum, child) => sum + visit(child, id), 0);
    };
    assert.ok(tree.roots.reduce((sum, root) => sum + visit(root, undefined), 0) > 4);
  });

  void it('skips the group level when everything is in one group', () => {
    const tree = buildTree([inApp('a1', 3), inApp('m1', 1, `${APP}/.mcp.json`)], [], folders, displayPath);
    assert.deepEqual(tree.roots, [`file:${APP}/.mcp.json`, `file:${APP}/.vscode/mcp.json`]);
    assert.equal(node(tree, tree.roots[0]!).parent, undefined);
    assert.equal(tree.get(`group:folder:${APP}`), undefined);
    const userOnly = buildTree([inUser('u1')], [], [], displayPath);
    assert.deepEqual(userOnly.roots, [`file:${USER_FILE}`]);
  });

  void it('shows file-level problems under their file and leaves server problems to the server', () => {
    const appFile = `${APP}/.vscode/mcp.json`;
    const broken = `${LIB}/.cursor/mcp.json`;
    const tree = buildTree(
      [inApp('a1', 3)],
      [
        diagnostic(broken),
        diagnostic(appFile, { serverName: 'a1', message: 'command must be a string' }),
        diagnostic(appFile, { serverName: 'ghost', severity: 'warning', message: 'unknown key' }),
      ],
      folders,
      displayPath,
    );
    const brokenFile = node(tree, `file:${broken}`);
    assert.equal(brokenFile.parent, `group:folder:${LIB}`, 'a problem file is placed by the folder that contains it');
    assert.equal(brokenFile.kind === 'file' && brokenFile.errorCount, 1);
    assert.equal(brokenFile.kind === 'file' && brokenFile.format, undefined);
    const problem = node(tree, brokenFile.children[0]!);
    assert.equal(problem.kind === 'problem' && problem.diagnostic.message, 'unexpected token');
    const app = node(tree, `file:${appFile}`);
    assert.equal(app.children.length, 2, 'the server and the problem of a server that is not listed');
    const ghost = node(tree, app.children[1]!);
    assert.equal(ghost.kind === 'problem' && ghost.diagnostic.serverName, 'ghost');
    assert.equal(app.kind === 'file' && app.errorCount, 0, 'warnings are not counted as errors');
  });

  void it('does not mistake a sibling folder with a common prefix for a workspace folder', () => {
    const tree = buildTree([inApp('a1', 3)], [diagnostic('/ws/app-old/.mcp.json')], folders, displayPath);
    assert.equal(node(tree, 'file:/ws/app-old/.mcp.json').parent, 'group:user');
  });

  void it('puts servers whose folder is no longer open under User', () => {
    const orphan = status('o', { config: { source: { file: '/gone/.vscode/mcp.json', folder: '/gone' } } });
    const tree = buildTree([orphan, inApp('a1', 3)], [], folders, displayPath);
    assert.equal(node(tree, 'file:/gone/.vscode/mcp.json').parent, 'group:user');
  });

  void it('keeps user-scoped servers under User even when their file lies inside an open folder', () => {
    const home: WorkspaceFolderRef = { path: '/home/u', name: 'u' };
    const tree = buildTree([inUser('u1'), inApp('a1', 3)], [], [{ path: APP, name: 'app' }, home], displayPath);
    assert.equal(node(tree, `file:${USER_FILE}`).parent, 'group:user');
  });
});

void describe('serverIdFromElement', () => {
  void it('accepts tree elements and plain ids, rejects other nodes and non-strings', () => {
    const id = '/ws/app/.vscode/mcp.json#a';
    assert.equal(serverIdFromElement(serverElementId(id)), id);
    assert.equal(serverIdFromElement(id), id);
    assert.equal(serverIdFromElement('C:\\ws\\.vscode\\mcp.json#a'), 'C:\\ws\\.vscode\\mcp.json#a');
    for (const other of ['group:user', `file:${id}`, `detail:${id}:pid`, 'problem:/x:0', undefined, 42, { id }]) {
      assert.equal(serverIdFromElement(other), undefined, String(other));
    }
  });
});

void describe('fileDescription', () => {
  void it('names the client beside the file, but does not repeat a file name the label already shows', () => {
    assert.equal(fileDescription('.mcp.json', 'mcp-json'), undefined);
    assert.equal(fileDescription('sub/.mcp.json', 'mcp-json'), undefined);
    assert.equal(fileDescription('.vscode/mcp.json', 'vscode'), 'VS Code');
    assert.equal(fileDescription('~/.cursor/mcp.json', 'cursor'), 'Cursor');
    assert.equal(fileDescription('x.json', undefined), undefined);
  });
});

void describe('changedElements: what the tree repaints after a status change', () => {
  const a = inApp('a', 2);
  const b = inApp('b', 6);
  const before = buildTree([a, b], [], folders, displayPath);

  void it('repaints only the servers whose status changed, when each is still where it was', () => {
    const after = buildTree([{ ...a, state: 'down' }, b], [], folders, displayPath);
    assert.deepEqual(changedElements(new Set([a.config.id]), before, after), [serverElementId(a.config.id)]);
    assert.deepEqual(changedElements(new Set(), before, after), []);
  });

  void it('repaints the whole tree when the list changed or a changed server is new, gone or moved', () => {
    assert.equal(changedElements('all', before, before), null);
    const withoutB = buildTree([a], [], folders, displayPath);
    assert.equal(changedElements(new Set([b.config.id]), before, withoutB), null);
    const bMoved = inLib('b');
    const moved = buildTree([a, { ...bMoved, config: { ...bMoved.config, id: b.config.id } }], [], folders, displayPath);
    assert.equal(changedElements(new Set([b.config.id]), before, moved), null);
  });
});
