// The built extension bundle leaves YAML and TOML parsing, and the rewrite behind Guard This Server, to dist/lazy/*.js
// (esbuild.js, LAZY_MODULES): no such file is required at activation or discovery, and each parser is required once a
// workspace holds a file of its format, whose servers are then found as before.
// Needs the bundle built first (`node esbuild.js`, as the integration script does).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadBundle, ROOT } from './loadBundle';

void describe('the extension bundle loads config parsers lazily', { timeout: 60_000 }, () => {
  void it('ships each parser in its own file, outside dist/extension.js', () => {
    for (const file of ['yaml.js', 'smol-toml.js', 'guardRewrite.js'])
      assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'lazy', file)), `dist/lazy/${file} is built`);
    const bundle = fs.readFileSync(path.join(ROOT, 'dist', 'extension.js'), 'utf8');
    // Strings of yaml's and smol-toml's own code, not of ours: the parsers are not carried twice.
    assert.ok(!bundle.includes('Implicit keys need to be on a single line'), 'yaml is not in dist/extension.js');
    assert.ok(!bundle.includes('control characters are not allowed in strings'), 'smol-toml is not in dist/extension.js');
    assert.ok(!bundle.includes('does not run through mcp-health guard'), 'the guard rewrite is not in dist/extension.js');
    // The rewrite reads TOML through the lazy parser's own file, not a copy of it.
    const rewrite = fs.readFileSync(path.join(ROOT, 'dist', 'lazy', 'guardRewrite.js'), 'utf8');
    assert.ok(rewrite.includes('does not run through mcp-health guard'));
    assert.ok(!rewrite.includes('control characters are not allowed in strings'), 'smol-toml is not copied into the rewrite');
  });

  void it('a lazy file that needs another requires it from dist/lazy, beside itself', () => {
    const lazy = path.join(ROOT, 'dist', 'lazy');
    let required = 0;
    for (const file of fs.readdirSync(lazy).filter((name) => name.endsWith('.js'))) {
      const text = fs.readFileSync(path.join(lazy, file), 'utf8');
      // The stand-in's `require(path.join(__dirname, …))`, minified or not.
      for (const [, parts] of text.matchAll(/join\(__dirname,\s*((?:"[^"]*",?\s*)+)\)/g)) {
        const target = path.join(lazy, ...(JSON.parse(`[${parts.trim().replace(/,$/, '')}]`) as string[]));
        assert.ok(fs.existsSync(target), `dist/lazy/${file} requires ${path.relative(ROOT, target)}, which is not there`);
        required++;
      }
    }
    assert.ok(required >= 3, `the guard's files require the rewrite and both parsers (found ${required})`);
    // The rewrite behind Guard This Server on a Codex entry, as the extension runs it: TOML comes from smol-toml.js.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const rewrite = require(path.join(lazy, 'guardRewrite.js')) as typeof import('../../../src/core/config/guardRewrite');
    const guarded = rewrite.guardEntry(
      { text: '[mcp_servers.x]\ncommand = "node"\nargs = ["s.js"]\n', file: '/tmp/config.toml', format: 'codex', name: 'x' },
      { command: 'node', args: ['/copy/guard.js', 'guard'] },
    );
    assert.match(guarded, /args = \["\/copy\/guard\.js", "guard", "--name", "x", "--", "node", "s\.js"\]/);
  });

  void it('requires neither at activation, and each once a file of its format is discovered', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-lazy-'));
    try {
      const json = path.join(scratch, 'json-only');
      fs.mkdirSync(path.join(json, '.vscode'), { recursive: true });
      fs.writeFileSync(
        path.join(json, '.vscode', 'mcp.json'),
        JSON.stringify({ servers: { 'json-server': { command: 'node', args: ['server.js'] } } }),
      );
      const onlyJson = await loadBundle(json, path.join(scratch, 'a'), { expectNames: ['json-server'] });
      assert.deepEqual(onlyJson.atActivation, []);
      assert.deepEqual(onlyJson.afterDiscovery, [], 'a JSON workspace never loads a YAML or TOML parser');
      assert.ok(
        onlyJson.servers.some((server) => server.name === 'json-server'),
        JSON.stringify(onlyJson.servers),
      );

      const mixed = path.join(scratch, 'mixed');
      fs.mkdirSync(path.join(mixed, '.continue', 'mcpServers'), { recursive: true });
      fs.mkdirSync(path.join(mixed, '.codex'), { recursive: true });
      fs.writeFileSync(
        path.join(mixed, '.continue', 'mcpServers', 'block.yaml'),
        'name: block\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: yaml-server\n    command: node\n    args: [server.js]\n',
      );
      fs.writeFileSync(path.join(mixed, '.codex', 'config.toml'), '[mcp_servers.toml-server]\ncommand = "node"\nargs = ["server.js"]\n');
      const both = await loadBundle(mixed, path.join(scratch, 'b'), { expectNames: ['yaml-server', 'toml-server'] });
      assert.deepEqual(both.atActivation, []);
      assert.deepEqual(both.afterDiscovery, ['smol-toml.js', 'yaml.js']);
      const names = both.servers.map((server) => server.name);
      assert.ok(names.includes('yaml-server') && names.includes('toml-server'), JSON.stringify(both.servers));
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });
});
