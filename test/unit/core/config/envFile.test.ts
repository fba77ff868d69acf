import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvFile } from '../../../../src/core/config/envFile';
import { discover } from '../../../../src/core/config/discover';
import { brief, discoveryOptions, memoryFs } from './helpers';

void describe('parseEnvFile', () => {
  void it('reads KEY=VALUE lines with comments, export and quotes', () => {
    const parsed = parseEnvFile(
      [
        '# a comment',
        '',
        'PLAIN=value',
        'export EXPORTED=yes',
        'SPACED = padded value   # trailing comment',
        'DOUBLE="two\\nlines \\"quoted\\""',
        "SINGLE='keep $literal # not a comment'",
        'EMPTY=',
        'HASH=a#b',
        'not a line',
      ].join('\n'),
    );
    assert.deepEqual(parsed.values, {
      PLAIN: 'value',
      EXPORTED: 'yes',
      SPACED: 'padded value',
      DOUBLE: 'two\nlines "quoted"',
      SINGLE: 'keep $literal # not a comment',
      EMPTY: '',
      HASH: 'a#b',
    });
    assert.deepEqual(parsed.invalidLines, [10]);
  });

  void it('handles CRLF and a byte-order mark', () => {
    assert.deepEqual(parseEnvFile('\uFEFFA=1\r\nB=2\r\n').values, { A: '1', B: '2' });
  });
});

void describe('envFile in discovery', () => {
  const config = `{
  "servers": {
    "with-file": { "command": "run", "envFile": "\${workspaceFolder}/.env", "env": { "OVERRIDE": "from-env" } },
    "relative": { "command": "run", "envFile": "conf/dev.env" },
    "missing": { "command": "run", "envFile": "/nowhere/.env" }
  }
}`;

  void it('merges the file under env, resolves relative paths from the folder, and drops a server whose file is missing', async () => {
    const fs = memoryFs({
      '/work/proj/.vscode/mcp.json': config,
      '/work/proj/.env': 'OVERRIDE=from-file\nAPI_TOKEN=tok-from-file\nbad line\n',
      '/work/proj/conf/dev.env': 'MODE=dev\n',
    });
    const result = await discover(discoveryOptions({ includeUser: false }), fs);
    assert.deepEqual(
      result.servers.map((s) => s.name),
      ['with-file', 'relative'],
    );
    const withFile = result.servers[0];
    assert.equal(withFile.envFile, '/work/proj/.env');
    assert.deepEqual(withFile.env, { OVERRIDE: 'from-env', API_TOKEN: 'tok-from-file' });
    assert.deepEqual(withFile.secretValues, ['tok-from-file']);
    assert.deepEqual(result.servers[1].env, { MODE: 'dev' });
    assert.deepEqual(brief(result.diagnostics), [
      '3:1 warning envFile line is not KEY=VALUE; ignored',
      '5:5 error [missing] envFile of server "missing" does not exist: /nowhere/.env',
    ]);
    assert.equal(result.diagnostics[0].file, '/work/proj/.env');
    assert.equal(fs.reads.filter((path) => path === '/work/proj/.env').length, 1, 'each env file is read once');
  });
});
