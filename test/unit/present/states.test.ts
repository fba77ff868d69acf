import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerState } from '../../../src/core/model';
import {
  describeState,
  exitSummary,
  formatMs,
  healthOf,
  isMonitored,
  isSlow,
  plural,
  stateIcon,
  stateLabels,
  type Health,
} from '../../../src/present/states';
import { status } from './fixtures';

const allStates: readonly ServerState[] = [
  'idle',
  'starting',
  'connecting',
  'verifying',
  'up',
  'down',
  'gave-up',
  'suspect',
  'auth-required',
  'needs-input',
  'config-error',
  'disabled',
  'untrusted',
  'needs-consent',
];

void describe('healthOf', () => {
  void it('maps every state to its health', () => {
    const expected: Record<ServerState, Health> = {
      up: 'ok',
      idle: 'pending',
      starting: 'pending',
      connecting: 'pending',
      'gave-up': 'error',
      verifying: 'pending',
      suspect: 'warning',
      'auth-required': 'warning',
      'needs-input': 'warning',
      down: 'error',
      'config-error': 'error',
      disabled: 'inactive',
      untrusted: 'inactive',
      'needs-consent': 'inactive',
      'sandbox-unavailable': 'warning',
    };
    for (const state of allStates) {
      assert.equal(healthOf(status('s', { state })), expected[state], state);
    }
  });

  void it('counts a flapping server as warning even while it is up', () => {
    assert.equal(healthOf(status('s', { state: 'up', flapping: true, restarts: 4 })), 'warning');
  });

  void it('does not soften a flapping server that is down', () => {
    assert.equal(healthOf(status('s', { state: 'down', flapping: true })), 'error');
  });
});

void describe('isMonitored', () => {
  void it('excludes only disabled and Restricted-Mode servers', () => {
    const unmonitored = allStates.filter((state) => !isMonitored(status('s', { state })));
    assert.deepEqual(unmonitored, ['disabled', 'untrusted', 'needs-consent']);
  });
});

void describe('stateIcon', () => {
  void it('gives every state a distinct codicon', () => {
    const ids = allStates.map((state) => stateIcon(status('s', { state })).id);
    assert.equal(new Set(ids).size, allStates.length);
  });

  void it('marks a flapping up server with the warning colour instead of the pass icon', () => {
    assert.deepEqual(stateIcon(status('s', { state: 'up', flapping: true })), { id: 'pulse', color: 'list.warningForeground' });
    assert.deepEqual(stateIcon(status('s', { state: 'up' })), { id: 'pass-filled', color: 'testing.iconPassed' });
  });
});

void describe('formatMs', () => {
  void it('keeps a decimal under 10 ms, whole ms below 10 s, seconds above', () => {
    assert.equal(formatMs(0.44), '0.4 ms');
    assert.equal(formatMs(3.25), '3.3 ms');
    assert.equal(formatMs(42.4), '42 ms');
    assert.equal(formatMs(9_999), '9999 ms');
    assert.equal(formatMs(12_345), '12.3 s');
  });

  void it('renders a dash for nothing measured', () => {
    for (const value of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.equal(formatMs(value), '–');
    }
  });

  void it('rolls a value that rounds up to 10 s over to seconds', () => {
    assert.equal(formatMs(9_999.6), '10 s');
  });
});

void describe('describeState', () => {
  void it('adds the round trip to an up server', () => {
    assert.equal(describeState(status('s', { state: 'up', lastRttMs: 3.14 })), 'up · 3.1 ms');
    assert.equal(describeState(status('s', { state: 'up', lastRttMs: null })), 'up');
  });

  void it('summarises the failure of a down server', () => {
    assert.equal(
      describeState(status('s', { state: 'down', lastError: { kind: 'exited', message: 'bye', exitCode: 1 } })),
      'down · exited (code 1)',
    );
    assert.equal(
      describeState(status('s', { state: 'down', lastError: { kind: 'exited', message: 'bye', exitCode: null, signal: 'SIGKILL' } })),
      'down · killed by SIGKILL',
    );
    assert.equal(describeState(status('s', { state: 'down', lastError: { kind: 'timeout', message: 'no answer' } })), 'down · timed out');
    assert.equal(
      describeState(status('s', { state: 'down', lastError: { kind: 'unreachable', message: 'refused', httpStatus: 502 } })),
      'down · HTTP 502',
    );
    assert.equal(
      describeState(status('s', { state: 'auth-required', lastError: { kind: 'auth', message: 'no', httpStatus: 401 } })),
      'needs auth · HTTP 401',
    );
    assert.equal(
      describeState(status('s', { state: 'suspect', lastError: { kind: 'protocol-violation', message: 'non-empty' } })),
      'suspect · protocol violation',
    );
  });

  void it('never copies the error message itself into the short line', () => {
    const line = describeState(
      status('s', { state: 'down', lastError: { kind: 'unreachable', message: 'connect https://u:pw-secret@host failed' } }),
    );
    assert.equal(line, 'down · unreachable');
  });

  void it('names the missing inputs of a server waiting for input', () => {
    assert.equal(
      describeState(status('s', { state: 'needs-input', config: { missingInputs: ['api-key', 'region'] } })),
      'needs input · api-key, region',
    );
  });

  void it('says flapping with the restart count, ahead of non-conformance', () => {
    assert.equal(
      describeState(status('s', { state: 'up', lastRttMs: null, flapping: true, restarts: 1, nonConformant: true })),
      'up · flapping, 1 restart',
    );
    assert.equal(describeState(status('s', { state: 'up', lastRttMs: null, flapping: true, restarts: 3 })), 'up · flapping, 3 restarts');
    assert.equal(describeState(status('s', { state: 'up', lastRttMs: null, nonConformant: true })), 'up · non-conformant');
  });

  void it('labels Restricted Mode explicitly', () => {
    assert.equal(describeState(status('s', { state: 'untrusted' })), stateLabels.untrusted);
    assert.match(stateLabels.untrusted, /Restricted Mode/);
  });
});

void describe('exitSummary and plural', () => {
  void it('prefers the signal over the code', () => {
    assert.equal(exitSummary(0, 'SIGTERM'), 'killed by SIGTERM');
    assert.equal(exitSummary(0, null), 'exited (code 0)');
    assert.equal(exitSummary(null, null), 'exited');
    assert.equal(exitSummary(undefined, undefined), 'exited');
  });

  void it('pluralises everything but one', () => {
    assert.equal(plural(0, 'probe'), '0 probes');
    assert.equal(plural(1, 'probe'), '1 probe');
    assert.equal(plural(2, 'probe'), '2 probes');
  });
});

void describe('slow', () => {
  void it('an up server flagged slow has the warning health and icon colour, and says so beside its RTT', () => {
    const slow = status('a', { state: 'up', slow: true, lastRttMs: 1200 });
    assert.equal(healthOf(slow), 'warning');
    assert.equal(isSlow(slow), true);
    assert.deepEqual(stateIcon(slow), { id: 'dashboard', color: 'list.warningForeground' });
    assert.equal(describeState(slow), 'up · 1200 ms · slow');
    assert.equal(isSlow(status('b', { state: 'suspect', slow: true })), false);
    assert.equal(healthOf(status('c', { state: 'up', slow: false })), 'ok');
  });
});
