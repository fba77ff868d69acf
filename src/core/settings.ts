// Every `mcpHealth.*` setting in one table: its type, default, bounds, allowed values, scope, and how a raw value is
// read. The editor (src/present/settingsModel.ts through src/vscode/settings.ts) parses with it, the monitor and the
// CLI take their defaults from it (defaultMonitorSettings), and test/unit/present/settingsManifest.test.ts holds
// package.json's contributes.configuration to it, so a setting's facts are written here and nowhere else.
//
// Scopes. The extension reads its settings once per window, without a resource (`getConfiguration('mcpHealth')`), and
// monitors the servers of that window's workspace. So:
// - `window` for every setting about which servers are watched and how: a workspace may rightly differ from the user's
//   defaults (a workspace of heavy servers on `check`, a slow server's threshold), and a per-folder (`resource`) value
//   would be offered in the Settings editor but never read.
// - `application` for `metrics.listen`: it opens a port on the machine, so a workspace (even a trusted one) must not
//   set it, and every window would compete for the one port it names.
// - `machine-overridable` fits nothing here yet: no setting is a path or a capacity of the machine.

/** The scopes VS Code knows for a setting (package.json `scope`). */
export type SettingScope = 'application' | 'machine' | 'machine-overridable' | 'window' | 'resource' | 'language-overridable';

export interface NumberSetting {
  readonly type: 'number';
  readonly default: number;
  readonly minimum: number;
  readonly maximum: number;
  readonly scope: SettingScope;
  /** The value in force: hand-edited JSON skips the Settings editor's bounds, so they are enforced here too. */
  readonly parse: (raw: unknown) => number;
}

export interface EnumSetting<T extends string> {
  readonly type: 'string';
  readonly enum: readonly T[];
  readonly default: T;
  readonly scope: SettingScope;
  readonly parse: (raw: unknown) => T;
}

export interface BooleanSetting {
  readonly type: 'boolean';
  readonly default: boolean;
  readonly scope: SettingScope;
  readonly parse: (raw: unknown) => boolean;
}

export interface StringSetting {
  readonly type: 'string';
  readonly default: string;
  readonly scope: SettingScope;
  readonly parse: (raw: unknown) => string;
}

export interface StringListSetting {
  readonly type: 'array';
  readonly default: readonly string[];
  readonly scope: SettingScope;
  readonly parse: (raw: unknown) => readonly string[];
}

/** An object setting; `properties` states the bounds of the fields a value may have (serverOverrides' per-server fields). */
export interface ObjectSetting<T> {
  readonly type: 'object';
  /** undefined where the default is not a fixed object (discovery.sources: every known format on). */
  readonly default: Readonly<Record<string, unknown>> | undefined;
  readonly scope: SettingScope;
  readonly properties?: Readonly<
    Record<string, Pick<NumberSetting, 'type' | 'minimum' | 'maximum'> | Pick<EnumSetting<string>, 'type' | 'enum'>>
  >;
  readonly parse: (raw: unknown) => T;
}

export type Setting = NumberSetting | EnumSetting<string> | BooleanSetting | StringSetting | StringListSetting | ObjectSetting<unknown>;

export const MONITOR_MODE_VALUES = ['watch', 'check', 'off'] as const;
export type MonitorModeValue = (typeof MONITOR_MODE_VALUES)[number];

/** One server's overrides as read from `serverOverrides` (seconds and milliseconds as the user wrote them, bounded). */
export interface ServerOverride {
  readonly intervalSeconds?: number;
  readonly mode?: MonitorModeValue;
  readonly slowThresholdMs?: number;
  readonly startupTimeoutSeconds?: number;
}

type Rounding = 'none' | 'round' | 'floor';

/** A number clamped into its bounds; anything that is not a finite number is the default. */
function bounded(defaultValue: number, minimum: number, maximum: number, scope: SettingScope, rounding: Rounding = 'none'): NumberSetting {
  return {
    type: 'number',
    default: defaultValue,
    minimum,
    maximum,
    scope,
    parse: (raw) => (isFiniteNumber(raw) ? clamp(whole(raw, rounding), minimum, maximum) : defaultValue),
  };
}

function oneOf<T extends string>(values: readonly T[], defaultValue: T, scope: SettingScope): EnumSetting<T> {
  return {
    type: 'string',
    enum: values,
    default: defaultValue,
    scope,
    parse: (raw) => (values.includes(raw as T) ? (raw as T) : defaultValue),
  };
}

function flag(defaultValue: boolean, scope: SettingScope): BooleanSetting {
  return { type: 'boolean', default: defaultValue, scope, parse: (raw) => (typeof raw === 'boolean' ? raw : defaultValue) };
}

/** The bounds of an interval in seconds; per transport and per server alike. */
const INTERVAL = { minimum: 5, maximum: 3600 } as const;
const STARTUP = { minimum: 5, maximum: 600 } as const;
/** Above the longest probe timeout: a larger threshold could never be reached. */
const SLOW = { minimum: 0, maximum: 30_000 } as const;
/** More failures than this before `down` would hide an outage for minutes. */
const CONSECUTIVE = { minimum: 1, maximum: 10 } as const;

const interval = (defaultSeconds: number) => bounded(defaultSeconds, INTERVAL.minimum, INTERVAL.maximum, 'window');

export const SETTINGS = {
  'pingIntervalSeconds.stdio': interval(30),
  'pingIntervalSeconds.http': interval(20),
  'pingIntervalSeconds.sse': interval(20),
  timeoutSeconds: bounded(5, 1, 30, 'window'),
  /** A first `npx -y` / `uvx` start downloads the package (often 20-60 s), slower still with many servers at once. */
  startupTimeoutSeconds: bounded(120, STARTUP.minimum, STARTUP.maximum, 'window'),
  /** As language clients do (vscode-languageclient: 5 crashes in 3 minutes); one crash is an incident, not a loop. */
  'crashLoop.maxCrashes': bounded(5, 2, 100, 'window', 'round'),
  'crashLoop.windowMinutes': bounded(3, 1, 60, 'window'),
  serverOverrides: {
    type: 'object',
    default: {},
    scope: 'window',
    properties: {
      intervalSeconds: { type: 'number', ...INTERVAL },
      mode: { type: 'string', enum: MONITOR_MODE_VALUES },
      slowThresholdMs: { type: 'number', minimum: 1, maximum: SLOW.maximum },
      startupTimeoutSeconds: { type: 'number', ...STARTUP },
    },
    parse: parseServerOverrides,
  } satisfies ObjectSetting<Readonly<Record<string, ServerOverride>>>,
  notifications: oneOf(['all', 'errors', 'off'] as const, 'errors', 'window'),
  /** 0: never remind. A positive value is whole minutes, at least one; at most a week. */
  notificationReminderMinutes: {
    ...bounded(0, 0, 10_080, 'window'),
    parse: (raw: unknown) => (isFiniteNumber(raw) && raw > 0 ? Math.min(10_080, Math.max(1, Math.round(raw))) : 0),
  },
  /** Only booleans count; a format left out is on (the default lists every format, see the manifest test). */
  'discovery.sources': {
    type: 'object',
    default: undefined,
    scope: 'window',
    parse: (raw: unknown): Readonly<Record<string, boolean>> =>
      isRecord(raw)
        ? Object.fromEntries(Object.entries(raw).filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean'))
        : {},
  } satisfies ObjectSetting<Readonly<Record<string, boolean>>>,
  'discovery.includeUserConfigs': flag(true, 'window'),
  /** Server names or ids, trimmed, without blanks and repeats. */
  excludedServers: {
    type: 'array',
    default: [],
    scope: 'window',
    parse: (raw: unknown): readonly string[] =>
      Array.isArray(raw) ? [...new Set(raw.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()))] : [],
  } satisfies StringListSetting,
  'statusBar.show': oneOf(['always', 'whenServers', 'never'] as const, 'whenServers', 'window'),
  monitoringMode: oneOf(MONITOR_MODE_VALUES, 'watch', 'window'),
  checkIntervalMinutes: bounded(10, 1, 1440, 'window'),
  /** `HOST:PORT`; empty: no endpoint. The manifest's pattern checks the form, src/metrics/listenAddress.ts parses it. */
  'metrics.listen': {
    type: 'string',
    default: '',
    scope: 'application',
    parse: (raw: unknown) => (typeof raw === 'string' ? raw.trim() : ''),
  } satisfies StringSetting,
  /** 0: off. Anything not positive is off too. */
  slowThresholdMs: { ...bounded(0, SLOW.minimum, SLOW.maximum, 'window'), parse: (raw: unknown) => positive(raw, SLOW.maximum) ?? 0 },
  /** 1 is the protocol's rule: the first failure is down. */
  failuresBeforeDown: bounded(1, CONSECUTIVE.minimum, CONSECUTIVE.maximum, 'window', 'floor'),
  /** 1: up as soon as it is connected again. */
  successesBeforeUp: bounded(1, CONSECUTIVE.minimum, CONSECUTIVE.maximum, 'window', 'floor'),
  'codeLens.enabled': flag(true, 'window'),
} as const satisfies Readonly<Record<string, Setting>>;

export type SettingKey = keyof typeof SETTINGS;

function parseServerOverrides(raw: unknown): Readonly<Record<string, ServerOverride>> {
  const result: Record<string, ServerOverride> = {};
  if (!isRecord(raw)) return result;
  for (const [name, override] of Object.entries(raw)) {
    if (!isRecord(override)) continue;
    const intervalSeconds = clampOr(override.intervalSeconds, INTERVAL.minimum, INTERVAL.maximum);
    const mode = MONITOR_MODE_VALUES.includes(override.mode as MonitorModeValue) ? (override.mode as MonitorModeValue) : undefined;
    const startupTimeoutSeconds = clampOr(override.startupTimeoutSeconds, STARTUP.minimum, STARTUP.maximum);
    // A threshold of 0 or less means "not overridden", not "never slow".
    const slowThresholdMs = positive(override.slowThresholdMs, SLOW.maximum);
    result[name] = {
      ...(intervalSeconds !== undefined ? { intervalSeconds } : {}),
      ...(mode !== undefined ? { mode } : {}),
      ...(slowThresholdMs !== undefined ? { slowThresholdMs } : {}),
      ...(startupTimeoutSeconds !== undefined ? { startupTimeoutSeconds } : {}),
    };
  }
  return result;
}

/** Clamped into bounds; undefined (not overridden) for anything but a finite number. */
function clampOr(raw: unknown, minimum: number, maximum: number): number | undefined {
  return isFiniteNumber(raw) ? clamp(raw, minimum, maximum) : undefined;
}

/** A threshold: set only when positive, and at most `maximum`. */
function positive(raw: unknown, maximum: number): number | undefined {
  return isFiniteNumber(raw) && raw > 0 ? Math.min(maximum, raw) : undefined;
}

function clamp(value: number, minimum: number, maximum: number): number {
  return Math.min(maximum, Math.max(minimum, value));
}

function whole(value: number, rounding: Rounding): number {
  return rounding === 'round' ? Math.round(value) : rounding === 'floor' ? Math.floor(value) : value;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
