import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_PROBE_TIMEOUT_MS,
  ModulesError,
  parseDuration,
  parseServeConfig,
  type SecretSources,
} from '../../../../src/metrics/probe/modules';
import { parseServeArgs } from '../../../../src/cli/serve';

const HASH = 'a'.repeat(64);
const files: Record<string, string> = { '/run/secrets/token': 's3cret-from-file\n', '/run/secrets/empty': '\n' };
const secrets: SecretSources = {
  env: { MCP_TOKEN: 'tok-from-env-123' },
  readFile: (file) => {
    const content = files[file];
    if (content === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    return content;
  },
};
const parse = (text: string) => parseServeConfig(text, '/etc/mcp-health/modules.yml', secrets);
const refused = (text: string, pattern: RegExp) =>
  assert.throws(
    () => parse(text),
    (error: unknown) => error instanceof ModulesError && pattern.test(error.message),
  );

void describe('serve modules file', () => {
  void it('an empty file gives the default module, no allow-list and the default bound', () => {
    const config = parse('');
    assert.deepEqual([...config.modules.keys()], ['default']);
    assert.equal(config.modules.get('default')!.timeoutMs, DEFAULT_PROBE_TIMEOUT_MS);
    assert.equal(config.modules.get('default')!.listTools, true);
    assert.equal(config.allow, null);
    assert.equal(config.maxConcurrent, DEFAULT_MAX_CONCURRENT);
  });

  void it('reads timeout, headers from env and file (with a prefix), proxy, list_tools and the expected hash', () => {
    const config = parse(`
modules:
  default:
    timeout: 2s
  internal:
    timeout: 1500ms
    headers:
      Authorization: { env: MCP_TOKEN, prefix: "Bearer " }
      X-Api-Key: { file: /run/secrets/token }
      X-Team: platform
    proxy: http://user:pw-secret@proxy.internal:3128
    list_tools: true
    expected_tools_hash: ${HASH.toUpperCase()}
  quick:
    list_tools: false
max_concurrent: 4
allow: [127.0.0.0/8, mcp.example.internal]
`);
    assert.equal(config.modules.get('default')!.timeoutMs, 2000);
    const internal = config.modules.get('internal')!;
    assert.equal(internal.timeoutMs, 1500);
    assert.deepEqual(internal.headers, { Authorization: 'Bearer tok-from-env-123', 'X-Api-Key': 's3cret-from-file', 'X-Team': 'platform' });
    // Every value read for a header (and the bare secret behind a prefix, and the proxy's password) is masked later.
    for (const secret of ['Bearer tok-from-env-123', 'tok-from-env-123', 's3cret-from-file', 'pw-secret'])
      assert.ok(internal.secretValues.includes(secret), secret);
    assert.equal(internal.proxy, 'http://user:pw-secret@proxy.internal:3128');
    assert.equal(internal.expectedToolsHash, HASH);
    assert.equal(config.modules.get('quick')!.listTools, false);
    assert.equal(config.maxConcurrent, 4);
    assert.ok(config.allow);
  });

  void it('a missing variable or an unreadable or empty file is an error naming the module and header, never a value', () => {
    refused(
      'modules: {m: {headers: {Authorization: {env: NOPE}}}}',
      /modules\.m\.headers\.Authorization\.env: the environment variable NOPE is not set/,
    );
    refused(
      'modules: {m: {headers: {Authorization: {file: /run/secrets/missing}}}}',
      /modules\.m\.headers\.Authorization\.file: cannot read \/run\/secrets\/missing: ENOENT/,
    );
    refused('modules: {m: {headers: {Authorization: {file: /run/secrets/empty}}}}', /is empty/);
    refused('modules: {m: {headers: {Authorization: {env: MCP_TOKEN, file: /run/secrets/token}}}}', /exactly one of env or file/);
    assert.throws(
      () => parse('modules: {m: {headers: {"Bad Header": {env: MCP_TOKEN}}}}'),
      (error: unknown) => !(error as Error).message.includes('tok-from-env'),
    );
  });

  void it('refuses unknown keys, bad values and YAML errors with the file and place', () => {
    refused('modules: {m: {timeout: 5s, header: {}}}', /modules\.m\.header: unknown key/);
    refused('nope: 1', /modules\.yml: nope: unknown key/);
    refused('modules: {m: {timeout: forever}}', /modules\.m\.timeout: expected a duration/);
    refused('modules: {m: {timeout: 10m}}', /modules\.m\.timeout/);
    refused('modules: {m: {proxy: socks5://x:1}}', /modules\.m\.proxy/);
    refused('modules: {m: {list_tools: "yes"}}', /list_tools: expected true or false/);
    refused('modules: {m: {expected_tools_hash: abc}}', /expected_tools_hash: expected a sha256/);
    refused(`modules: {m: {list_tools: false, expected_tools_hash: ${HASH}}}`, /needs list_tools/);
    refused('max_concurrent: 0', /max_concurrent/);
    refused('allow: [10.0.0.0/33]', /allow: "10\.0\.0\.0\/33" is not a CIDR range/);
    refused('allow: "127.0.0.1"', /allow: expected a list/);
    refused('modules: {"bad name": {}}', /a module name is/);
    refused('modules:\n  m: {timeout: 5s\n', /modules\.yml:\d+: YAML error/);
    refused('modules: {m: {headers: {X-A: "a\\nb"}}}', /line break/);
  });

  void it('durations read as the blackbox exporter writes them', () => {
    assert.equal(parseDuration('5s'), 5000);
    assert.equal(parseDuration('250ms'), 250);
    assert.equal(parseDuration('1m'), 60_000);
    assert.equal(parseDuration(2.5), 2500);
    assert.equal(parseDuration('5'), undefined);
    assert.equal(parseDuration(-1), undefined);
  });

  void it('serve listens on loopback unless told otherwise', () => {
    assert.deepEqual(parseServeArgs([]), { listen: { host: '127.0.0.1', port: 9465 }, modules: undefined });
    assert.deepEqual(parseServeArgs(['--listen', ':9999', '--modules', 'm.yml']), {
      listen: { host: '127.0.0.1', port: 9999 },
      modules: 'm.yml',
    });
    assert.equal(typeof parseServeArgs(['--listen', 'nope']), 'string');
    assert.equal(typeof parseServeArgs(['--target', 'x']), 'string');
  });
});
