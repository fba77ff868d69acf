import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guardedName } from '../../../src/core/guarded';
import { redactStatus, type PublishedGuardStatus } from '../../../src/guard/statusChannel';

void describe('guarded config entries', () => {
  const entry = (command: string, args: string[]) => ({ name: 'entry', transport: 'stdio' as const, command, args });

  void it('recognises npx, a global install and a path to the CLI, with or without --name', () => {
    assert.equal(guardedName(entry('npx', ['-y', 'mcp-health', 'guard', '--name', 'gh', '--', 'node', 's.js'])), 'gh');
    assert.equal(guardedName(entry('mcp-health', ['guard', '--', 'node', 's.js'])), 'entry');
    assert.equal(guardedName(entry('npx', ['-y', 'mcp-health@0.2.0', 'guard', '--', 'x'])), 'entry');
    assert.equal(guardedName(entry('node', ['/opt/mcp-health/dist/cli.js', 'guard', '--', 'x'])), 'entry');
  });

  void it('recognises what guard --print-config prints from a checkout in any directory', () => {
    assert.equal(guardedName(entry('node', ['/home/me/src/checkout/dist/cli.js', 'guard', '--name', 'gh', '--', 'node', 's.js'])), 'gh');
    assert.equal(
      guardedName(entry('node', ['C:\\src\\x\\dist\\cli.js', 'guard', '--name', 'web', '--url', 'http://127.0.0.1:9/mcp'])),
      'web',
    );
    // Another tool's cli.js with a guard subcommand, without the guard's own --name, stays a plain server.
    assert.equal(guardedName(entry('node', ['/opt/other/cli.js', 'guard', '--', 'x'])), null);
  });

  void it("recognises what Guard This Server writes: the stable copy in the extension's global storage", () => {
    const stable = '/home/me/.vscode-server/data/User/globalStorage/mcp-health.mcp-health/bin/mcp-health-guard.js';
    assert.equal(guardedName(entry('node', [stable, 'guard', '--name', 'gh', '--', 'node', 's.js'])), 'gh');
    assert.equal(
      guardedName(
        entry('node', [
          'C:\\Users\\me\\AppData\\Code\\User\\globalStorage\\x\\bin\\mcp-health-guard.js',
          'guard',
          '--name',
          'w',
          '--',
          'x',
        ]),
      ),
      'w',
    );
    // Without the guard's own --name, a file of that name is not taken for ours either.
    assert.equal(guardedName(entry('node', ['/opt/other/mcp-health-guard.js', 'guard', '--', 'x'])), null);
  });

  void it('does not mistake other servers for guarded ones', () => {
    assert.equal(guardedName(entry('node', ['server.js', 'guard'])), null);
    assert.equal(guardedName(entry('npx', ['-y', 'some-server', '--', 'mcp-health', 'guard'])), null);
    assert.equal(guardedName({ name: 'h', transport: 'http', command: undefined, args: undefined }), null);
  });
});

void describe('published guard status', () => {
  void it('masks secrets in the target, the last error and the stderr tail', () => {
    const status = {
      type: 'guard-status',
      name: 'gh',
      guardPid: 1,
      target: 'node s.js --token sekrit-value-123',
      state: 'ready',
      era: 'handshake',
      protocolVersion: '2025-06-18',
      upstreamPid: 2,
      generation: 2,
      restarts: 1,
      keepalive: { probes: 0, answered: 0, violations: 0, lastRttMs: null, rttsMs: [], stoppedReason: null },
      methods: {},
      lastError: {
        message: 'upstream exited with code 1',
        exitCode: 1,
        signal: null,
        stderrTail: 'auth failed for sekrit-value-123',
        atMs: 0,
      },
    } as PublishedGuardStatus;
    const text = JSON.stringify(redactStatus(status, ['sekrit-value-123']));
    assert.doesNotMatch(text, /sekrit/);
    assert.match(text, /auth failed for \*\*\*/);
  });
});
