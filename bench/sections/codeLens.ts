// 8. Status in the config file: what one provideCodeLenses call costs for a .vscode/mcp.json of 500 servers, run by the
// real adapter (src/vscode/configLens.ts, on the bench's fake `vscode`) over a real registry. Compared in the same run
// with one snapshot of that registry (what a naive provider would take per render) and one parse of the file by the
// format's own parser (what re-parsing per render would cost).
import Module from 'node:module';
import { join } from 'node:path';
import { parseConfigText } from '../../src/core/config/discover';
import type { ConfigDiagnostic } from '../../src/core/model';
import type { BenchContext } from '../lib/context';
import type { Ours } from '../lib/ours';

const FILE = '/bench/ws/.vscode/mcp.json';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createFakeVscode } = require('../extension/fake-vscode.cjs') as {
  createFakeVscode: (options: { workspaceFolder?: string }) => unknown;
};

type ProviderModule = typeof import('../../src/vscode/configLens');

/** Loads the adapter with the fake `vscode` in place of the editor's module, as the extension bench does for the bundle. */
function loadProvider(): ProviderModule {
  const fakeId = join(__dirname, '..', 'extension', 'fake-vscode.cjs#vscode');
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = loader._resolveFilename;
  loader._resolveFilename = function resolve(request: string, ...rest: unknown[]) {
    return request === 'vscode' ? fakeId : original.call(this, request, ...rest);
  };
  require.cache[fakeId] = {
    id: fakeId,
    filename: fakeId,
    loaded: true,
    exports: createFakeVscode({ workspaceFolder: '/bench/ws' }),
  } as NodeJS.Module;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../../src/vscode/configLens') as ProviderModule;
}

function configText(count: number): string {
  const servers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `server-${i}`,
      i % 5 === 4
        ? { type: 'http', url: `http://127.0.0.1:${20000 + i}/mcp`, headers: { Authorization: 'Bearer ${input:token}' } }
        : { type: 'stdio', command: 'npx', args: ['-y', `@example/mcp-server-${i}`, '--stdio'], env: { LOG_LEVEL: 'info' } },
    ]),
  );
  return `${JSON.stringify({ servers }, null, 2)}\n`;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Median over rounds of the mean time of one call within a round, ms. */
function timePerCall(rounds: number, callsPerRound: number, call: () => unknown, beforeEach?: () => void): number {
  const perCall: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let total = 0;
    for (let i = 0; i < callsPerRound; i++) {
      beforeEach?.();
      const start = performance.now();
      call();
      total += performance.now() - start;
    }
    perCall.push(total / callsPerRound);
  }
  return median(perCall);
}

export async function codeLensCost(context: BenchContext, ours: Ours): Promise<void> {
  const count = 500;
  const rounds = context.quick ? 5 : 15;
  const calls = context.quick ? 20 : 50;
  const text = configText(count);
  const parseContext = {
    scope: 'workspace' as const,
    folder: '/bench/ws',
    workspaceFolders: ['/bench/ws'],
    userHome: '/home/bench',
    platform: 'linux' as const,
    env: {},
  };
  const parsed = parseConfigText(text, FILE, 'vscode', parseContext);
  if (parsed.servers.length !== count) throw new Error(`parsed ${parsed.servers.length} servers, expected ${count}`);

  const connector = ours.createNodeConnector({ logger: ours.silentLogger });
  const registry = ours.createRegistry({
    connector,
    clock: ours.systemClock,
    logger: ours.silentLogger,
    settings: ours.defaultMonitorSettings,
  });
  const { ConfigLensProvider } = loadProvider();
  const provider = new ConfigLensProvider(registry, true);
  try {
    registry.setServers(parsed.servers, parsed.diagnostics);
    const lines = text.split('\n');
    // The shape of a vscode.TextDocument the provider reads; saved, so its places come from discovery.
    const document = {
      uri: { scheme: 'file', fsPath: FILE },
      version: 1,
      isDirty: false,
      getText: () => text,
      lineAt: (line: number) => ({ text: lines[line] ?? '' }),
    } as unknown as Parameters<typeof provider.provideCodeLenses>[0];
    const lenses = provider.provideCodeLenses(document);
    // Four lenses per server (state, Ping, Reconnect, Show Log); three for the HTTP ones waiting for their ${input:}.
    if (lenses.length < count * 3) throw new Error(`${lenses.length} lenses for ${count} servers, expected at least ${count * 3}`);

    const warm = timePerCall(rounds, calls, () => provider.provideCodeLenses(document));
    // One server changes state (monitoring of one turned off and on: a `state` event, like a probe or an exit).
    let toggled = false;
    const oneChanged = timePerCall(
      rounds,
      calls,
      () => provider.provideCodeLenses(document),
      () => {
        toggled = !toggled;
        registry.setEnabled(parsed.servers[250]?.id ?? '', !toggled);
      },
    );
    // A re-discovery (a `servers` event) drops every cache: the next render rebuilds the file index and all 500 texts.
    let flip = false;
    const rediscovered = timePerCall(
      rounds,
      calls,
      () => provider.provideCodeLenses(document),
      () => {
        flip = !flip;
        const diagnostics: ConfigDiagnostic[] = flip ? [{ file: FILE, line: 1, column: 1, severity: 'warning', message: 'bench' }] : [];
        registry.setServers(parsed.servers, diagnostics);
      },
    );
    // An unsaved buffer: one parse per document version, then cached.
    let version = 1;
    const dirty = timePerCall(rounds, calls, () =>
      provider.provideCodeLenses({ ...document, isDirty: true, version: ++version } as typeof document),
    );
    const snapshot = timePerCall(rounds, calls, () => registry.list());
    const parse = timePerCall(rounds, calls, () => parseConfigText(text, FILE, 'vscode', parseContext));

    context.raw.codeLens = {
      count,
      lenses: lenses.length,
      rounds,
      callsPerRound: calls,
      warmMs: warm,
      oneChangedMs: oneChanged,
      rediscoveredMs: rediscovered,
      unsavedEditMs: dirty,
      registrySnapshotMs: snapshot,
      parseMs: parse,
    };
    context.figures.push({
      section: 'codelens',
      name: `provideCodeLenses for a config file of ${count} servers (${lenses.length} lenses), nothing changed since the last render`,
      value: warm,
      unit: 'ms',
      reference: { name: `one registry snapshot (list()) of the same ${count} servers`, value: snapshot },
      target: { max: 1, on: 'ratio' },
      note: 'the last answer stands: positions from discovery, texts and lenses cached; no parse, no I/O',
    });
    context.figures.push({
      section: 'codelens',
      name: `provideCodeLenses after one of ${count} servers changed state`,
      value: oneChanged,
      unit: 'ms',
      reference: { name: `one registry snapshot (list()) of the same ${count} servers`, value: snapshot },
      target: null,
      note: "only the changed server's text and lenses are rebuilt; the walk over the file's 500 entries remains",
    });
    context.figures.push({
      section: 'codelens',
      name: `provideCodeLenses right after a re-discovery (every cache dropped), ${count} servers`,
      value: rediscovered,
      unit: 'ms',
      reference: { name: "one parse of the same file by its format's parser", value: parse },
      target: null,
      note: 'the file index and all texts rebuilt from one registry snapshot',
    });
    context.figures.push({
      section: 'codelens',
      name: `provideCodeLenses on an unsaved buffer, a new version each call, ${count} servers`,
      value: dirty,
      unit: 'ms',
      reference: { name: "one parse of the same file by its format's parser", value: parse },
      target: null,
      note: 'one parse per document version, then cached',
    });
  } finally {
    provider.dispose();
    await registry.dispose();
  }
}
