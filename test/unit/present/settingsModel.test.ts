import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultMonitorSettings } from '../../../src/core/monitorTypes';
import {
  compareSettings,
  INTERVAL_BOUNDS,
  isExcluded,
  parseSettings,
  TIMEOUT_BOUNDS,
  type SettingReader,
} from '../../../src/present/settingsModel';

const reader =
  (values: Record<string, unknown>): SettingReader =>
  (key) =>
    values[key];
const parse = (values: Record<string, unknown> = {}) => parseSettings(reader(values));

void describe('parseSettings', () => {
  void it('falls back to the monitor defaults and documented presentation defaults when nothing is set', () => {
    const settings = parse();
    assert.deepEqual(settings.monitor, defaultMonitorSettings);
    assert.equal(settings.notifications, 'errors');
    assert.equal(settings.statusBar, 'whenServers');
    assert.deepEqual(settings.discovery, { sources: {}, includeUserConfigs: true });
    assert.deepEqual(settings.excludedServers, []);
  });

  void it('reads the monitoring mode, per-server mode overrides and the check interval in minutes', () => {
    const settings = parse({
      monitoringMode: 'check',
      checkIntervalMinutes: 30,
      serverOverrides: { github: { mode: 'off', intervalSeconds: 60 }, heavy: { mode: 'check' }, typo: { mode: 'sometimes' } },
    });
    assert.equal(settings.monitor.mode, 'check');
    assert.equal(settings.monitor.checkIntervalMs, 30 * 60_000);
    assert.deepEqual(settings.monitor.serverMode, { github: 'off', heavy: 'check' });
    assert.deepEqual(settings.monitor.serverIntervalMs, { github: 60_000 });
    assert.equal(parse({ monitoringMode: 'never' }).monitor.mode, 'watch');
    assert.equal(parse({ checkIntervalMinutes: 0 }).monitor.checkIntervalMs, 60_000);
    assert.ok(compareSettings(parse(), parse({ serverOverrides: { a: { mode: 'check' } } })).retime, 'a mode change re-gates the monitor');
  });

  void it('reads the start-up budget (per server too) and the crash-loop rule, within bounds', () => {
    const settings = parse({
      startupTimeoutSeconds: 90,
      'crashLoop.maxCrashes': 7,
      'crashLoop.windowMinutes': 10,
      serverOverrides: { npx: { startupTimeoutSeconds: 300 }, tiny: { startupTimeoutSeconds: 1 } },
    });
    assert.equal(settings.monitor.startupTimeoutMs, 90_000);
    assert.deepEqual(settings.monitor.serverStartupTimeoutMs, { npx: 300_000, tiny: 5_000 });
    assert.deepEqual(settings.monitor.crashLoop, { crashes: 7, windowMs: 600_000 });
    assert.equal(parse({ startupTimeoutSeconds: 100_000 }).monitor.startupTimeoutMs, 600_000);
    assert.deepEqual(parse({ 'crashLoop.maxCrashes': 1, 'crashLoop.windowMinutes': 0 }).monitor.crashLoop, {
      crashes: 2,
      windowMs: 60_000,
    });
  });

  void it('converts seconds to milliseconds per transport', () => {
    const settings = parse({
      'pingIntervalSeconds.stdio': 12,
      'pingIntervalSeconds.http': 45,
      'pingIntervalSeconds.sse': 7.5,
      timeoutSeconds: 3,
    });
    assert.deepEqual(settings.monitor.intervalMs, { stdio: 12_000, http: 45_000, sse: 7_500 });
    assert.equal(settings.monitor.timeoutMs, 3_000);
  });

  void it('clamps the interval to at least 5 s and at most an hour', () => {
    assert.equal(INTERVAL_BOUNDS.min, 5);
    const low = parse({ 'pingIntervalSeconds.stdio': 1, 'pingIntervalSeconds.http': 0, 'pingIntervalSeconds.sse': -30 });
    assert.deepEqual(low.monitor.intervalMs, { stdio: 5_000, http: 5_000, sse: 5_000 });
    assert.equal(parse({ 'pingIntervalSeconds.stdio': 86_400 }).monitor.intervalMs.stdio, INTERVAL_BOUNDS.max * 1000);
  });

  void it('clamps the timeout to 1..30 s', () => {
    assert.deepEqual(TIMEOUT_BOUNDS, { min: 1, max: 30 });
    assert.equal(parse({ timeoutSeconds: 0 }).monitor.timeoutMs, 1_000);
    assert.equal(parse({ timeoutSeconds: 0.2 }).monitor.timeoutMs, 1_000);
    assert.equal(parse({ timeoutSeconds: 300 }).monitor.timeoutMs, 30_000);
    assert.equal(parse({ timeoutSeconds: 30 }).monitor.timeoutMs, 30_000);
  });

  void it('ignores values of the wrong type, NaN and infinity', () => {
    for (const bad of ['10', null, true, Number.NaN, Number.POSITIVE_INFINITY, { seconds: 10 }]) {
      const settings = parse({ 'pingIntervalSeconds.http': bad, timeoutSeconds: bad });
      assert.equal(settings.monitor.intervalMs.http, defaultMonitorSettings.intervalMs.http, String(bad));
      assert.equal(settings.monitor.timeoutMs, defaultMonitorSettings.timeoutMs, String(bad));
    }
  });

  void it('reads per-server interval overrides, clamped, and skips malformed ones', () => {
    const settings = parse({
      serverOverrides: {
        fast: { intervalSeconds: 1 },
        slow: { intervalSeconds: 120 },
        text: { intervalSeconds: '60' },
        bare: 60,
        nan: { intervalSeconds: Number.NaN },
      },
    });
    assert.deepEqual(settings.monitor.serverIntervalMs, { fast: 5_000, slow: 120_000 });
    assert.deepEqual(parse({ serverOverrides: ['fast'] }).monitor.serverIntervalMs, {});
  });

  void it('accepts only the known notification and status bar choices', () => {
    assert.equal(parse({ notifications: 'all' }).notifications, 'all');
    assert.equal(parse({ notifications: 'off' }).notifications, 'off');
    assert.equal(parse({ notifications: 'loud' }).notifications, 'errors');
    assert.equal(parse({ 'statusBar.show': 'never' }).statusBar, 'never');
    assert.equal(parse({ 'statusBar.show': 'sometimes' }).statusBar, 'whenServers');
  });

  void it('keeps boolean discovery sources only', () => {
    const settings = parse({ 'discovery.sources': { cursor: false, zed: true, codex: 'no' }, 'discovery.includeUserConfigs': false });
    assert.deepEqual(settings.discovery, { sources: { cursor: false, zed: true }, includeUserConfigs: false });
    assert.equal(parse({ 'discovery.includeUserConfigs': 'false' }).discovery.includeUserConfigs, true);
  });

  void it('trims, de-duplicates and drops blank or non-string excluded servers', () => {
    assert.deepEqual(parse({ excludedServers: [' a ', 'a', '', '  ', 3, null, 'b'] }).excludedServers, ['a', 'b']);
    assert.deepEqual(parse({ excludedServers: 'a' }).excludedServers, []);
  });

  void it('returns a deeply frozen object', () => {
    const settings = parse({ serverOverrides: { a: { intervalSeconds: 10 } } });
    assert.ok(Object.isFrozen(settings));
    assert.ok(Object.isFrozen(settings.monitor.intervalMs));
    assert.ok(Object.isFrozen(settings.monitor.serverIntervalMs));
    assert.ok(Object.isFrozen(settings.discovery.sources));
    assert.ok(Object.isFrozen(settings.excludedServers));
  });
});

void describe('compareSettings', () => {
  const none = { retime: false, rediscover: false, rerender: false, notifications: false, metrics: false };

  void it('reports nothing for equal settings read twice', () => {
    const values = {
      'pingIntervalSeconds.http': 30,
      serverOverrides: { a: { intervalSeconds: 9 } },
      'discovery.sources': { cursor: false },
      excludedServers: ['x'],
    };
    assert.deepEqual(compareSettings(parse(values), parse(values)), none);
  });

  void it('re-times for an interval, override or timeout change and keeps connections and discovery', () => {
    const base = parse();
    assert.deepEqual(compareSettings(base, parse({ 'pingIntervalSeconds.stdio': 60 })), { ...none, retime: true });
    assert.deepEqual(compareSettings(base, parse({ timeoutSeconds: 10 })), { ...none, retime: true });
    assert.deepEqual(compareSettings(base, parse({ serverOverrides: { a: { intervalSeconds: 9 } } })), { ...none, retime: true });
  });

  void it('does not re-time when a new value clamps to the old one', () => {
    assert.deepEqual(compareSettings(parse({ timeoutSeconds: 30 }), parse({ timeoutSeconds: 90 })), none);
  });

  void it('re-discovers when sources, user configs or exclusions change', () => {
    const base = parse();
    assert.deepEqual(compareSettings(base, parse({ 'discovery.sources': { cursor: false } })), { ...none, rediscover: true });
    assert.deepEqual(compareSettings(base, parse({ 'discovery.includeUserConfigs': false })), { ...none, rediscover: true });
    assert.deepEqual(compareSettings(base, parse({ excludedServers: ['github'] })), { ...none, rediscover: true });
  });

  void it('turns the config-file lenses on by default, off only for false, and re-renders without touching the monitor', () => {
    assert.equal(parse().codeLens, true);
    assert.equal(parse({ 'codeLens.enabled': 'no' }).codeLens, true);
    assert.equal(parse({ 'codeLens.enabled': false }).codeLens, false);
    assert.deepEqual(compareSettings(parse(), parse({ 'codeLens.enabled': false })), { ...none, rerender: true });
  });

  void it('ignores key order inside objects', () => {
    const a = parse({ 'discovery.sources': { cursor: false, zed: true } });
    const b = parse({ 'discovery.sources': { zed: true, cursor: false } });
    assert.deepEqual(compareSettings(a, b), none);
  });

  void it('only re-renders for the status bar and only flags notifications for the notification level', () => {
    const base = parse();
    assert.deepEqual(compareSettings(base, parse({ 'statusBar.show': 'always' })), { ...none, rerender: true });
    assert.deepEqual(compareSettings(base, parse({ notifications: 'off' })), { ...none, notifications: true });
  });

  void it('moves the metrics endpoint when its address changes, or when the timeout it records changes while it serves', () => {
    const base = parse();
    assert.equal(parse({ 'metrics.listen': ' 127.0.0.1:9464 ' }).metricsListen, '127.0.0.1:9464');
    assert.equal(parse({ 'metrics.listen': 9464 }).metricsListen, '');
    assert.deepEqual(compareSettings(base, parse({ 'metrics.listen': ':9464' })), { ...none, metrics: true });
    const serving = parse({ 'metrics.listen': ':9464' });
    assert.deepEqual(compareSettings(serving, parse({ 'metrics.listen': ':9464', timeoutSeconds: 10 })), {
      ...none,
      retime: true,
      metrics: true,
    });
    assert.deepEqual(compareSettings(base, parse({ timeoutSeconds: 10 })), { ...none, retime: true });
  });
});

void describe('isExcluded', () => {
  void it('matches the name as written in the file or the full id', () => {
    const settings = parse({ excludedServers: ['github', '/ws/.mcp.json#files'] });
    assert.ok(isExcluded(settings, { id: '/ws/.vscode/mcp.json#github', name: 'github' }));
    assert.ok(isExcluded(settings, { id: '/ws/.mcp.json#files', name: 'files' }));
    assert.ok(!isExcluded(settings, { id: '/ws/.vscode/mcp.json#files', name: 'files' }));
    assert.ok(!isExcluded(settings, { id: '/ws/.vscode/mcp.json#GitHub', name: 'GitHub' }));
  });
});

void describe('notificationReminderMinutes', () => {
  void it('is off by default and for anything but a positive number; whole minutes within bounds; a change re-reads notifications', () => {
    assert.equal(parse().notificationReminderMs, 0);
    for (const bad of [-5, 0, 'ten', Number.NaN, null])
      assert.equal(parse({ notificationReminderMinutes: bad }).notificationReminderMs, 0, String(bad));
    assert.equal(parse({ notificationReminderMinutes: 30 }).notificationReminderMs, 30 * 60_000);
    assert.equal(parse({ notificationReminderMinutes: 0.2 }).notificationReminderMs, 60_000);
    assert.equal(parse({ notificationReminderMinutes: 1e9 }).notificationReminderMs, 10_080 * 60_000);
    assert.equal(compareSettings(parse(), parse({ notificationReminderMinutes: 15 })).notifications, true);
  });
});
