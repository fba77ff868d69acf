// package.json's settings state bounds and defaults the user sees in the Settings editor; the core holds the same
// numbers for parsing and for the CLI. The core is the one source: this test holds the contribution to it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SETTINGS_BOUNDS } from '../../../src/core/monitor/intervals';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';

interface NumberSetting {
  readonly default?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly additionalProperties?: { readonly properties: Readonly<Record<string, NumberSetting>> };
}

const ROOT = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  readonly contributes: { readonly configuration: { readonly properties: Readonly<Record<string, NumberSetting>> } };
};
const setting = (key: string): NumberSetting => {
  const found = manifest.contributes.configuration.properties[`mcpHealth.${key}`];
  assert.ok(found, `mcpHealth.${key} is contributed`);
  return found;
};
const bounds = (entry: NumberSetting) => ({ min: entry.minimum, max: entry.maximum });

void describe('settings contribution against the core', () => {
  for (const transport of ['stdio', 'http', 'sse'] as const) {
    void it(`pingIntervalSeconds.${transport}: the core's default and bounds`, () => {
      const entry = setting(`pingIntervalSeconds.${transport}`);
      assert.equal(entry.default, defaultMonitorSettings.intervalMs[transport] / 1000);
      assert.deepEqual(bounds(entry), SETTINGS_BOUNDS.intervalSeconds);
    });
  }

  void it('serverOverrides.intervalSeconds: the same bounds as the per-transport intervals', () => {
    const override = setting('serverOverrides').additionalProperties?.properties.intervalSeconds;
    assert.ok(override);
    assert.deepEqual(bounds(override), SETTINGS_BOUNDS.intervalSeconds);
  });

  void it("timeoutSeconds: the core's default and bounds", () => {
    const entry = setting('timeoutSeconds');
    assert.equal(entry.default, defaultMonitorSettings.timeoutMs / 1000);
    assert.deepEqual(bounds(entry), SETTINGS_BOUNDS.timeoutSeconds);
  });

  void it("checkIntervalMinutes: the core's default and bounds", () => {
    const entry = setting('checkIntervalMinutes');
    assert.equal(entry.default, (defaultMonitorSettings.checkIntervalMs ?? 0) / 60_000);
    assert.deepEqual(bounds(entry), SETTINGS_BOUNDS.checkIntervalMinutes);
  });

  void it("startupTimeoutSeconds and crashLoop.*: the core's defaults and bounds", () => {
    assert.equal(setting('startupTimeoutSeconds').default, (defaultMonitorSettings.startupTimeoutMs ?? 0) / 1000);
    assert.deepEqual(bounds(setting('startupTimeoutSeconds')), SETTINGS_BOUNDS.startupTimeoutSeconds);
    const override = setting('serverOverrides').additionalProperties?.properties.startupTimeoutSeconds;
    assert.ok(override);
    assert.deepEqual(bounds(override), SETTINGS_BOUNDS.startupTimeoutSeconds);
    assert.equal(setting('crashLoop.maxCrashes').default, defaultMonitorSettings.crashLoop?.crashes);
    assert.deepEqual(bounds(setting('crashLoop.maxCrashes')), SETTINGS_BOUNDS.crashLoopCrashes);
    assert.equal(setting('crashLoop.windowMinutes').default, (defaultMonitorSettings.crashLoop?.windowMs ?? 0) / 60_000);
    assert.deepEqual(bounds(setting('crashLoop.windowMinutes')), SETTINGS_BOUNDS.crashLoopWindowMinutes);
  });
});
