// One error shape: a failed connect, an ended connection and the status all carry a ServerError's facts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectError, withFacts } from '../../../src/core/connection';

void describe('ConnectError as a ServerError', () => {
  void it('keeps every known fact and marks the connect phase', () => {
    const error = new ConnectError('auth', 'HTTP 401', { httpStatus: 401, authenticate: 'Bearer realm="x"', code: 'E401' });
    assert.deepEqual(error.toServerError(), {
      kind: 'auth',
      message: 'HTTP 401',
      phase: 'connect',
      httpStatus: 401,
      authenticate: 'Bearer realm="x"',
      code: 'E401',
    });
  });

  void it('leaves out facts that are undefined instead of showing fields without a value', () => {
    const shown = new ConnectError('exited', 'exited with code 1', { exitCode: 1, signal: null, stderrTail: undefined }).toServerError();
    assert.deepEqual(Object.keys(shown).sort(), ['exitCode', 'kind', 'message', 'phase', 'signal']);
    assert.equal(shown.signal, null, 'null is a fact (no signal), unlike undefined');
  });
});

void describe('withFacts', () => {
  void it('lets the error itself win over a field of the same name among the facts', () => {
    const end = { kind: 'exited', message: 'gone', phase: 'probe', exitCode: 3 } as const;
    const { kind, message, ...facts } = end;
    assert.deepEqual(withFacts({ kind, message: `${message}!`, phase: 'session' }, facts), {
      kind: 'exited',
      message: 'gone!',
      phase: 'session',
      exitCode: 3,
    });
  });
});
