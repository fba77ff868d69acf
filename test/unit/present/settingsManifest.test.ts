// package.json's settings state the type, default, bounds and scope the user sees in the Settings editor; the core's
// table (src/core/settings.ts) holds the same facts for parsing, the monitor and the CLI. The table is the one
// source: this test holds the contribution to it, setting by setting.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DIALECTS } from '../../../src/core/config/dialects';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';
import { SETTINGS, type Setting } from '../../../src/core/settings';

interface Contributed {
  readonly type?: string;
  readonly scope?: string;
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly string[];
  readonly properties?: Readonly<Record<string, Contributed>>;
  readonly additionalProperties?: Contributed | boolean;
}

const ROOT = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  readonly contributes: { readonly configuration: { readonly properties: Readonly<Record<string, Contributed>> } };
};
const contributed = manifest.contributes.configuration.properties;
const table: Readonly<Record<string, Setting>> = SETTINGS;
const PREFIX = 'mcpHealth.';

/** The facts both sides state, in package.json's words; a fact one side leaves out stays out. */
function facts(entry: Contributed | Setting): Record<string, unknown> {
  const stated: Record<string, unknown> = { type: entry.type, scope: entry.scope };
  for (const key of ['minimum', 'maximum', 'enum'] as const) {
    if (key in entry) stated[key] = (entry as Contributed)[key];
  }
  return stated;
}

void describe('settings contribution against the core table', () => {
  void it('contributes exactly the settings the table has', () => {
    const keys = Object.keys(contributed).map((key) => {
      assert.ok(key.startsWith(PREFIX), `${key} is below ${PREFIX}`);
      return key.slice(PREFIX.length);
    });
    assert.deepEqual(keys.sort(), Object.keys(table).sort());
  });

  for (const [key, setting] of Object.entries(table)) {
    void it(`${key}: type, scope, bounds, allowed values and default as the table says`, () => {
      const entry = contributed[PREFIX + key];
      assert.ok(entry, `${key} is contributed`);
      assert.ok(entry.scope, `${key} declares a scope`);
      assert.deepEqual(facts(entry), facts(setting));
      if (setting.default !== undefined) assert.deepEqual(entry.default, setting.default);
    });
  }

  void it('serverOverrides: each per-server field has the bounds and values the table gives', () => {
    const fields = contributed[`${PREFIX}serverOverrides`]?.additionalProperties;
    assert.ok(fields && typeof fields === 'object' && fields.properties);
    const expected = SETTINGS.serverOverrides.properties;
    assert.deepEqual(Object.keys(fields.properties).sort(), Object.keys(expected).sort());
    for (const [name, field] of Object.entries(expected)) {
      assert.deepEqual(facts(fields.properties[name] ?? {}), { ...facts({ ...field, scope: undefined } as Contributed) }, name);
    }
    // A per-server interval is bounded like the per-transport ones, a start-up budget like the global one.
    assert.equal(expected.intervalSeconds.minimum, SETTINGS['pingIntervalSeconds.stdio'].minimum);
    assert.equal(expected.startupTimeoutSeconds.maximum, SETTINGS.startupTimeoutSeconds.maximum);
  });

  void it('discovery.sources: one switch per config format, each on by default', () => {
    const entry = contributed[`${PREFIX}discovery.sources`];
    assert.ok(entry?.properties);
    const formats = Object.keys(DIALECTS).sort();
    assert.deepEqual(Object.keys(entry.properties).sort(), formats);
    assert.deepEqual(entry.default, Object.fromEntries(formats.map((format) => [format, true])));
    for (const format of formats) assert.deepEqual(facts(entry.properties[format] ?? {}), { type: 'boolean', scope: undefined }, format);
  });

  void it("the monitor's defaults are the table's, converted to milliseconds", () => {
    assert.deepEqual(defaultMonitorSettings.intervalMs, {
      stdio: SETTINGS['pingIntervalSeconds.stdio'].default * 1000,
      http: SETTINGS['pingIntervalSeconds.http'].default * 1000,
      sse: SETTINGS['pingIntervalSeconds.sse'].default * 1000,
    });
    assert.equal(defaultMonitorSettings.timeoutMs, SETTINGS.timeoutSeconds.default * 1000);
    assert.equal(defaultMonitorSettings.startupTimeoutMs, SETTINGS.startupTimeoutSeconds.default * 1000);
    assert.equal(defaultMonitorSettings.checkIntervalMs, SETTINGS.checkIntervalMinutes.default * 60_000);
    assert.equal(defaultMonitorSettings.mode, SETTINGS.monitoringMode.default);
    assert.deepEqual(defaultMonitorSettings.crashLoop, {
      crashes: SETTINGS['crashLoop.maxCrashes'].default,
      windowMs: SETTINGS['crashLoop.windowMinutes'].default * 60_000,
    });
  });
});
