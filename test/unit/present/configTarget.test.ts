// Open Config goes to the key a cause names, for a real crash's stderr run through the real cause table.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { classifyFailure } from '../../../src/core/causes';
import type { ServerError } from '../../../src/core/model';
import { configTarget } from '../../../src/present/configTarget';
import { status } from './fixtures';

const realStderr = (name: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'stderr', `${name}.txt`), 'utf8');
const keys = { env: { line: 9, column: 7 }, args: { line: 8, column: 7 } };

function crashed(fixture: string, withKeys = true) {
  const error: ServerError = {
    kind: 'exited',
    message: 'Process exited with code 1 while connecting',
    exitCode: 1,
    stderrTail: realStderr(fixture),
    phase: 'connect',
  };
  const base = status('demo', { state: 'down', lastError: error });
  const source = { ...base.config.source, line: 6, column: 5, ...(withKeys ? { keys } : {}) };
  const config = { ...base.config, source };
  return { ...base, config, cause: classifyFailure({ state: 'down', error, transport: 'stdio', name: 'demo' }) };
}

void describe('configTarget', () => {
  void it('a missing variable opens the entry at "env"', () => {
    assert.deepEqual(configTarget(crashed('stripe-no-key')), { line: 9, column: 7 });
  });

  void it('a missing flag or file opens it at "args"', () => {
    assert.deepEqual(configTarget(crashed('python-argparse-required')), { line: 8, column: 7 });
    assert.deepEqual(configTarget(crashed('node-missing-file')), { line: 8, column: 7 });
  });

  void it('the server key when the cause names nothing, or the entry has no such key yet', () => {
    assert.deepEqual(configTarget(crashed('python-module-not-found')), { line: 6, column: 5 });
    assert.deepEqual(configTarget(crashed('stripe-no-key', false)), { line: 6, column: 5 });
  });

  void it('an up server opens at its entry', () => {
    assert.deepEqual(configTarget({ ...crashed('stripe-no-key'), state: 'up' }), { line: 6, column: 5 });
  });
});
