import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../../src/cli/args';
import { parseGuardArgs } from '../../../src/cli/guardArgs';
import { guardedEntry } from '../../../src/cli/guardConfig';
import type { SandboxPolicy } from '../../../src/core/model';
import { serverConfig } from '../../helpers/serverConfig';

const policy: SandboxPolicy = {
  filesystem: { allowWrite: ['/w'], denyRead: ['/s'], denyWrite: [] },
  network: { allowedDomains: ['a.test'], deniedDomains: [] },
};

void describe('guard --sandbox', () => {
  void it('carries the policy to the stdio target, every list optional', () => {
    const parsed = parseGuardArgs([
      '--sandbox',
      '{"filesystem":{"allowWrite":["/w"],"denyRead":["/s"]},"network":{"allowedDomains":["a.test"]}}',
      '--',
      'node',
      'x.js',
    ]);
    assert.ok(typeof parsed === 'object' && 'target' in parsed && parsed.target.kind === 'stdio');
    assert.deepEqual(parsed.target.sandbox, policy);
  });

  void it('refuses a policy it cannot read rather than running without it', () => {
    assert.throws(
      () => parseGuardArgs(['--sandbox', '{"filesystem":{"allowWrite":"/w"}}', '--', 'node']),
      (error: unknown) => error instanceof UsageError && /filesystem.allowWrite/.test(error.message),
    );
    assert.throws(() => parseGuardArgs(['--sandbox', 'nope', '--', 'node']), UsageError);
  });

  void it('--print-config keeps a sandboxed server sandboxed: the policy goes to the guard before --', () => {
    const entry = guardedEntry(serverConfig('s', { command: 'node', args: ['x.js'], sandbox: policy }));
    const at = entry.args.indexOf('--sandbox');
    assert.ok(at >= 0 && at < entry.args.indexOf('--'), entry.args.join(' '));
    assert.deepEqual(JSON.parse(entry.args[at + 1]!), policy);
    assert.deepEqual(entry.args.slice(entry.args.indexOf('--') + 1), ['node', 'x.js']);
  });
});
