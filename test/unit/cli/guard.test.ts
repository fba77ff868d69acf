import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/args';
import { parseGuardArgs } from '../../../src/cli/guardArgs';
import { guardedEntry, guardSnippets } from '../../../src/cli/guardConfig';
import { localLauncher } from '../../../src/core/guardLauncher';
import type { ServerConfig } from '../../../src/core/model';

const source = { file: '/w/.mcp.json', line: 1, column: 1, format: 'mcp-json', scope: 'workspace' } as unknown as ServerConfig['source'];

void describe('mcp-health guard arguments', () => {
  void it('takes the server command after -- verbatim, flags included', () => {
    const options = parseGuardArgs(['--interval-ms', '1000', '--', 'node', 'server.js', '--timeout-ms', '9']);
    assert.deepEqual(options, {
      name: 'node',
      intervalMs: 1000,
      timeoutMs: 5000,
      target: { kind: 'stdio', command: 'node', args: ['server.js', '--timeout-ms', '9'] },
    });
  });

  void it('parses --url with headers and --sse, and rejects mixes', () => {
    const options = parseGuardArgs(['--url', 'http://127.0.0.1:3001/mcp', '--header', 'Authorization: Bearer x', '--sse']);
    assert.ok(options !== 'help' && 'target' in options);
    assert.deepEqual(options.target, { kind: 'sse', url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer x' } });
    assert.throws(() => parseGuardArgs(['--url', 'http://h/mcp', '--', 'node']), UsageError);
    assert.throws(() => parseGuardArgs(['--url', 'ftp://h']), UsageError);
    assert.throws(() => parseGuardArgs([]), /missing the server command/);
    assert.throws(() => parseGuardArgs(['--interval-ms', '10', '--', 'x']), /at least 1000/);
  });

  void it('never echoes a header value in a usage error', () => {
    assert.throws(
      () => parseGuardArgs(['--url', 'http://h/mcp', '--header', 'bad header sekrit']),
      (error: Error) => !error.message.includes('sekrit'),
    );
  });
});

void describe('mcp-health guard --print-config', () => {
  const stdio: ServerConfig = {
    id: 'a',
    name: 'gh',
    source,
    transport: 'stdio',
    command: 'node',
    args: ['s.js'],
    env: { TOKEN: 'sekrit' },
  };
  const http: ServerConfig = {
    id: 'b',
    name: 'web',
    source,
    transport: 'http',
    url: 'http://127.0.0.1:9/mcp',
    headers: { Authorization: 'Bearer sekrit' },
  };

  void it('wraps the command in npx -y mcp-health guard and masks env and header values', () => {
    assert.deepEqual(guardedEntry(stdio), {
      command: 'npx',
      args: ['-y', 'mcp-health', 'guard', '--name', 'gh', '--', 'node', 's.js'],
      env: { TOKEN: '***' },
    });
    assert.deepEqual(guardedEntry(http).args, [
      '-y',
      'mcp-health',
      'guard',
      '--name',
      'web',
      '--url',
      'http://127.0.0.1:9/mcp',
      '--header',
      'Authorization: ***',
    ]);
    for (const server of [stdio, http]) assert.doesNotMatch(guardSnippets(server), /sekrit/);
  });

  void it('with the local launcher, runs this CLI by its absolute path and names it in the unguard hint', () => {
    const launcher = localLauncher('/opt/tools/mcp-health/dist/cli.js');
    assert.deepEqual(guardedEntry(stdio, launcher).args, [
      '/opt/tools/mcp-health/dist/cli.js',
      'guard',
      '--name',
      'gh',
      '--',
      'node',
      's.js',
    ]);
    assert.equal(guardedEntry(stdio, launcher).command, 'node');
    const text = guardSnippets(stdio, launcher);
    assert.match(text, /remove "node \/opt\/tools\/mcp-health\/dist\/cli\.js guard --name NAME --"/);
    assert.doesNotMatch(text, /npx/);
  });

  void it('prints both the VS Code "servers" and the portable "mcpServers" forms', () => {
    const text = guardSnippets(stdio);
    const blocks = text.split('\n\n').map(
      (block) =>
        JSON.parse(
          block
            .split('\n')
            .filter((line) => !line.startsWith('//'))
            .join('\n') || 'null',
        ) as unknown,
    );
    assert.deepEqual((blocks[0] as { servers: Record<string, { type: string }> }).servers.gh!.type, 'stdio');
    assert.ok((blocks[1] as { mcpServers: Record<string, unknown> }).mcpServers.gh);
  });
});
