// Discovery end to end over a read-only in-memory file system: random content in every file discovery reads, one
// good file among them, and the invariants that matter to a user: nothing thrown, every problem placed, the good
// file's servers still listed, nothing written.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { candidateFiles, discover, MAX_CONFIG_CHARS } from '../../../../src/core/config/discover';
import type { CandidateFile } from '../../../../src/core/config/types';
import { assertPlaced, assertServersWellFormed, discoveryOptions, FOLDER, readOnlyFs } from './fuzzSupport';

const GOOD_FILE = `${FOLDER}/.vscode/mcp.json`;
const GOOD_TEXT = JSON.stringify({ servers: { survivor: { command: 'node', args: ['server.js'] } } });

function pathsOf(candidate: CandidateFile): string[] {
  // Continue reads a folder of files: put a YAML and a JSON file in it.
  return candidate.dir ? [`${candidate.file}/a.yaml`, `${candidate.file}/b.json`] : [candidate.file];
}

const randomContent = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? ''),
  fc
    .dictionary(
      fc.constantFrom('servers', 'mcpServers', 'context_servers', 'mcp', 'inputs', 'projects', 'mcp_servers'),
      fc.jsonValue({ maxDepth: 3 }),
    )
    .map((v) => JSON.stringify(v)),
  fc.constantFrom(
    '',
    '\uFEFF',
    '{',
    '[mcp_servers.x]\ncommand = 1',
    'mcpServers:\n  - name: a\n    url: 5',
    '{"servers":{"x":{"envFile":"${workspaceFolder}/missing.env","command":"x"}}}',
  ),
);

void describe('fuzz: discover over every candidate file', () => {
  const candidates = candidateFiles(discoveryOptions());
  const allPaths = candidates.flatMap(pathsOf).filter((file) => file !== GOOD_FILE);

  void it(`random content in ${allPaths.length} files never throws, places every problem and keeps the good file's servers`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(randomContent, { minLength: allPaths.length, maxLength: allPaths.length }), async (contents) => {
        const files: Record<string, string> = { [GOOD_FILE]: GOOD_TEXT };
        allPaths.forEach((file, i) => (files[file] = contents[i]));
        const fs = readOnlyFs(files);
        const result = await discover(discoveryOptions(), fs);
        assertPlaced(result.diagnostics);
        assertServersWellFormed(result.servers);
        assert.ok(
          result.servers.some((s) => s.name === 'survivor' && s.source.file === GOOD_FILE),
          "the good file's server is still listed",
        );
        fs.assertUntouched();
      }),
      { numRuns: 60 },
    );
  });

  void it('every format through --config style explicit files, with random content', async () => {
    const names = [
      'mcp.json',
      'settings.json',
      '.mcp.json',
      'config.toml',
      'servers.yaml',
      'claude_desktop_config.json',
      'x.yml',
      'unknown.txt',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...names), randomContent, async (name, content) => {
        const file = `/cfg/${name}`;
        const fs = readOnlyFs({ [file]: content, [GOOD_FILE]: GOOD_TEXT });
        const result = await discover(discoveryOptions({ configFiles: [file, GOOD_FILE] }), fs);
        assertPlaced(result.diagnostics);
        assert.ok(result.servers.some((s) => s.name === 'survivor'));
        fs.assertUntouched();
      }),
      { numRuns: 150 },
    );
  });

  void it('a file system that throws on some reads: a diagnostic with its place, the rest still read', async () => {
    const files: Record<string, string> = { [GOOD_FILE]: GOOD_TEXT };
    const failing = new Set(
      candidates
        .map((c) => c.file)
        .filter((f) => f !== GOOD_FILE)
        .slice(0, 5),
    );
    const base = readOnlyFs(files);
    const result = await discover(discoveryOptions(), {
      readFile: (path) => (failing.has(path) ? Promise.reject(new Error('EACCES: permission denied')) : base.readFile(path)),
      readDir: (path) => (failing.has(path) ? Promise.reject(new Error('EIO')) : base.readDir(path)),
    });
    assertPlaced(result.diagnostics);
    assert.equal(result.diagnostics.filter((d) => /permission denied|EIO/.test(d.message)).length, failing.size);
    assert.ok(result.servers.some((s) => s.name === 'survivor'));
    base.assertUntouched();
  });

  void it('a file over the size bound is refused with a placed diagnostic, the others still read', async () => {
    const fs = readOnlyFs({ [GOOD_FILE]: GOOD_TEXT, [`${FOLDER}/.mcp.json`]: ' '.repeat(MAX_CONFIG_CHARS + 1) });
    const result = await discover(discoveryOptions(), fs);
    assertPlaced(result.diagnostics);
    assert.ok(result.diagnostics.some((d) => d.file === `${FOLDER}/.mcp.json` && /larger than/.test(d.message)));
    assert.ok(result.servers.some((s) => s.name === 'survivor'));
  });
});
