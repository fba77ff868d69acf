// The core's settings table reads every raw value the way the Settings editor promises: within the stated bounds,
// one of the stated values, and the stated default for anything else (settings edited by hand in JSON skip the
// editor's checks).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SETTINGS, type Setting } from '../../../src/core/settings';

const rows = Object.entries(SETTINGS as Readonly<Record<string, Setting>>);
const WRONG_TYPES: readonly unknown[] = [undefined, null, 'text', '12', true, [], {}, Number.NaN, Number.POSITIVE_INFINITY];

void describe('the settings table', () => {
  for (const [key, setting] of rows) {
    if (setting.type === 'number') {
      void it(`${key}: the default within its bounds, a value outside clamped, a wrong type the default`, () => {
        assert.ok(setting.minimum <= setting.default && setting.default <= setting.maximum, `default ${setting.default}`);
        for (const raw of WRONG_TYPES) assert.equal(setting.parse(raw), setting.default, String(raw));
        assert.equal(setting.parse(setting.minimum - 1000), setting.minimum);
        assert.equal(setting.parse(setting.maximum + 1000), setting.maximum);
        assert.equal(setting.parse(setting.maximum), setting.maximum);
      });
    } else if (setting.type === 'string' && 'enum' in setting) {
      void it(`${key}: each allowed value as it is, anything else the default`, () => {
        assert.ok(setting.enum.includes(setting.default));
        for (const value of setting.enum) assert.equal(setting.parse(value), value);
        for (const raw of [...WRONG_TYPES, 'sometimes', setting.default.toUpperCase()])
          assert.equal(setting.parse(raw), setting.default, String(raw));
      });
    } else if (setting.type === 'boolean') {
      void it(`${key}: a boolean as it is, anything else the default`, () => {
        assert.equal(setting.parse(true), true);
        assert.equal(setting.parse(false), false);
        for (const raw of WRONG_TYPES) assert.equal(setting.parse(raw), setting.default, String(raw));
      });
    }
  }

  void it('whole numbers where a fraction means nothing: crashes rounded, failures and successes floored', () => {
    assert.equal(SETTINGS['crashLoop.maxCrashes'].parse(6.6), 7);
    assert.equal(SETTINGS.failuresBeforeDown.parse(2.9), 2);
    assert.equal(SETTINGS.successesBeforeUp.parse(3.5), 3);
    assert.equal(SETTINGS.timeoutSeconds.parse(2.5), 2.5, 'seconds may be fractional');
  });

  void it('a reminder is whole minutes, at least one when set; 0 or less is never', () => {
    const reminder = SETTINGS.notificationReminderMinutes;
    assert.equal(reminder.parse(0.2), 1);
    assert.equal(reminder.parse(29.6), 30);
    assert.equal(reminder.parse(0), 0);
    assert.equal(reminder.parse(-3), 0);
  });

  void it('serverOverrides: each field bounded, a wrong one left out, a server whose value is no object skipped', () => {
    const parsed = SETTINGS.serverOverrides.parse({
      fast: { intervalSeconds: 1, mode: 'check', slowThresholdMs: 99_999, startupTimeoutSeconds: 10_000 },
      typo: { intervalSeconds: '30', mode: 'sometimes', slowThresholdMs: 0 },
      broken: 'not an object',
    });
    assert.deepEqual(parsed, {
      fast: { intervalSeconds: 5, mode: 'check', slowThresholdMs: 30_000, startupTimeoutSeconds: 600 },
      typo: {},
    });
    assert.deepEqual(SETTINGS.serverOverrides.parse(['a']), {});
  });

  void it('lists and text: names trimmed, blanks and repeats dropped; the listen address trimmed', () => {
    assert.deepEqual(SETTINGS.excludedServers.parse([' a ', 'a', '', '  ', 3, 'b']), ['a', 'b']);
    assert.deepEqual(SETTINGS.excludedServers.parse('a'), []);
    assert.equal(SETTINGS['metrics.listen'].parse(' 127.0.0.1:9464 '), '127.0.0.1:9464');
    assert.equal(SETTINGS['metrics.listen'].parse(9464), '');
    assert.deepEqual(SETTINGS['discovery.sources'].parse({ cursor: false, zed: 'no' }), { cursor: false });
  });
});
