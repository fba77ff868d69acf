// The lens index against a real registry (fake clock, scripted connector) fed by the real parser's output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfigText } from '../../../src/core/config/discover';
import { locateServers } from '../../../src/core/config/serverLocations';
import { ConfigLensIndex, type LensDocument, type LocateServers } from '../../../src/present/configLensIndex';
import { parseContext } from '../core/config/helpers';
import { harness } from '../core/monitor/harness';

const FILE = '/ws/app/.vscode/mcp.json';
const TEXT = [
  '{',
  '  "servers": {',
  '    "alpha": { "command": "node", "args": ["a.js"] },',
  '    "beta": { "command": "node", "args": ["b.js"] }',
  '  }',
  '}',
].join('\n');

function setUp() {
  const h = harness();
  const parsed = parseConfigText(TEXT, FILE, 'vscode', parseContext({ folder: '/ws/app' }));
  h.registry.setServers(parsed.servers, parsed.diagnostics);
  let locateCalls = 0;
  const locate: LocateServers = (...args) => {
    locateCalls++;
    return locateServers(...args);
  };
  let changes = 0;
  let gets = 0;
  let lists = 0;
  const counted = {
    list: () => {
      lists++;
      return h.registry.list();
    },
    get: (id: string) => {
      gets++;
      return h.registry.get(id);
    },
    onEvent: h.registry.onEvent.bind(h.registry),
  };
  const index = new ConfigLensIndex({
    registry: counted,
    now: () => h.clock.wall(),
    locate,
    parseContext: () => ({ workspaceFolders: ['/ws/app'], userHome: '/home/u', platform: 'linux', env: {} }),
    onDidChange: () => changes++,
    platform: 'linux',
  });
  return {
    h,
    index,
    counts: () => ({ locate: locateCalls, changes, gets, lists }),
  };
}

function document(text: string, version: number, isDirty: boolean, file = FILE): LensDocument {
  return { file, version, isDirty, getText: () => text };
}

void describe('ConfigLensIndex', () => {
  void it('puts each server of the file on its key line with its live state; other files get nothing', async () => {
    const { h, index } = setUp();
    const saved = document(TEXT, 1, false);
    assert.deepEqual(
      index.lensesFor(saved).map((lens) => [lens.model.name, lens.line, lens.model.summary]),
      [
        ['alpha', 3, '$(circle-large-outline) waiting'],
        ['beta', 4, '$(circle-large-outline) waiting'],
      ],
    );
    assert.equal(index.hasServers('/ws/app/other.json'), false);
    assert.deepEqual(index.lensesFor(document('{}', 1, false, '/ws/app/other.json')), []);
    h.registry.start();
    await h.clock.advance(0);
    assert.deepEqual(
      index.lensesFor(saved).map((lens) => lens.model.summary),
      ['$(pass-filled) up · handshake 0 ms', '$(pass-filled) up · handshake 0 ms'],
    );
    await h.registry.dispose();
    index.dispose();
  });

  void it('follows the registry live: a server dying shows down and tells the adapter', async () => {
    const { h, index, counts } = setUp();
    h.registry.start();
    await h.clock.advance(0);
    const before = counts().changes;
    h.connector.latest(`${FILE}#beta`).die({ kind: 'exited', message: 'process exited', exitCode: 3 });
    await h.clock.advance(0);
    assert.ok(counts().changes > before, 'the adapter hears of the change');
    const beta = index.lensesFor(document(TEXT, 1, false)).find((lens) => lens.model.name === 'beta');
    assert.match(beta?.model.summary ?? '', /^\$\(error\) down · exited \(code 3\)/);
    assert.deepEqual(
      beta?.model.actions.map((action) => action.title),
      ['Ping', 'Reconnect', 'Show Log'],
    );
    await h.registry.dispose();
    index.dispose();
  });

  void it('renders from caches: no parse of a saved file, no registry call while nothing changed', async () => {
    const { h, index, counts } = setUp();
    h.registry.start();
    await h.clock.advance(0);
    const saved = document(TEXT, 1, false);
    index.lensesFor(saved);
    const first = counts();
    for (let i = 0; i < 20; i++) index.lensesFor(saved);
    assert.deepEqual(counts(), first, 'twenty renders: nothing parsed, nothing asked of the registry');
    assert.equal(first.locate, 0, 'a saved file is never parsed: its places come from discovery');
    assert.equal(index.lensesFor(saved)[0]?.model, index.lensesFor(saved)[0]?.model, 'the same model object: the adapter keeps its lenses');
    const generation = index.generation;
    // One server changes: only that one is asked for again.
    h.connector.latest(`${FILE}#alpha`).die({ kind: 'exited', message: 'gone', exitCode: 1 });
    await h.clock.advance(0);
    assert.ok(index.generation > generation, 'a change moves the generation the adapter keys its last answer on');
    const afterEvent = counts();
    index.lensesFor(saved);
    assert.ok(counts().gets - afterEvent.gets <= 1, `asked ${counts().gets - afterEvent.gets} times for one changed server`);
    assert.equal(counts().lists, afterEvent.lists, 'the file index is kept');
    await h.registry.dispose();
    index.dispose();
  });

  void it('an unsaved buffer is parsed once per version, so lenses follow lines typed above them', async () => {
    const { h, index, counts } = setUp();
    const edited = TEXT.replace('  "servers": {', '  "servers": {\n\n\n    // three lines added above alpha');
    const v2 = document(edited, 2, true);
    assert.deepEqual(
      index.lensesFor(v2).map((lens) => [lens.model.name, lens.line]),
      [
        ['alpha', 6],
        ['beta', 7],
      ],
    );
    index.lensesFor(v2);
    index.lensesFor(v2);
    assert.equal(counts().locate, 1, 'same version: parsed once');
    // Beta deleted in the buffer: its lens goes; a new version is parsed again.
    const v3 = document(edited.replace(/,\n\s*"beta".*\n/, '\n'), 3, true);
    assert.deepEqual(
      index.lensesFor(v3).map((lens) => [lens.model.name, lens.line]),
      [['alpha', 6]],
    );
    assert.equal(counts().locate, 2);
    // Saved (no longer dirty): back to discovery's places, no parse.
    assert.deepEqual(
      index.lensesFor(document(TEXT, 4, false)).map((lens) => lens.line),
      [3, 4],
    );
    assert.equal(counts().locate, 2);
    await h.registry.dispose();
    index.dispose();
  });

  void it('a re-discovery that moved servers moves their lenses', async () => {
    const { h, index } = setUp();
    const moved = TEXT.replace('{\n', '{\n\n');
    const parsed = parseConfigText(moved, FILE, 'vscode', parseContext({ folder: '/ws/app' }));
    const before = index.lensesFor(document(TEXT, 1, false)).map((lens) => lens.line);
    h.registry.setServers(parsed.servers, parsed.diagnostics);
    assert.deepEqual(before, [3, 4]);
    assert.deepEqual(
      index.lensesFor(document(moved, 2, false)).map((lens) => lens.line),
      [4, 5],
    );
    await h.registry.dispose();
    index.dispose();
  });

  void it('stops listening when disposed', async () => {
    const { h, index, counts } = setUp();
    index.dispose();
    h.registry.start();
    await h.clock.advance(0);
    assert.equal(counts().changes, 0);
    await h.registry.dispose();
  });
});
