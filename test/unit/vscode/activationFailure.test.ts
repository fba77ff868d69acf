// An activation that fails must reach the user as an error notification, not only the developer console: the real
// src/extension.ts is loaded with the editor API and McpHealth replaced (Node's module loader is asked for `vscode` and
// `./vscode/mcpHealth`, and gets these), so what its activate() shows can be read back. The construction failure and
// the start failure (after activate() returned) are both checked, and the Show Log button of the second.

import assert from 'node:assert/strict';
import Module from 'node:module';
import { after, before, beforeEach, describe, it, mock } from 'node:test';

interface Shown {
  readonly message: string;
  readonly items: readonly string[];
}

const shown: Shown[] = [];
/** What the user clicks on the next error notification. */
let nextChoice: string | undefined;
/** A pseudo-locale: the notification must go through vscode.l10n.t, whose bundle VS Code fills. */
const bundle: Record<string, string> = {
  'MCP Health failed to start: {0}': '[xx] MCP Health n\u2019a pas d\u00e9marr\u00e9 : {0}',
  'Show Log': '[xx] Show Log',
};
const fakeVscode = {
  l10n: {
    bundle: undefined,
    t: (message: string, ...args: unknown[]) =>
      (bundle[message] ?? message).replace(/\{(\d+)\}/g, (match, index: string) => String(args[Number(index)] ?? match)),
  },
  window: {
    showErrorMessage: (message: string, ...items: string[]) => {
      shown.push({ message, items });
      return Promise.resolve(nextChoice);
    },
  },
  ExtensionMode: { Production: 1, Development: 2, Test: 3 },
};

/** What the fake McpHealth is told to do, and what it saw. */
const behaviour = { failConstruction: undefined as Error | undefined, failStart: undefined as Error | undefined };
const seen = { loggedErrors: [] as string[], logShown: 0, disposed: 0 };
class FakeMcpHealth {
  constructor() {
    if (behaviour.failConstruction) throw behaviour.failConstruction;
  }
  start(): Promise<void> {
    return behaviour.failStart ? Promise.reject(behaviour.failStart) : Promise.resolve();
  }
  logError(message: string): void {
    seen.loggedErrors.push(message);
  }
  showLog(): void {
    seen.logShown++;
  }
  publicApi(): object {
    return {};
  }
  api(): object {
    return {};
  }
  dispose(): Promise<void> {
    seen.disposed++;
    return Promise.resolve();
  }
}

type Load = (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown;
const loader = Module as unknown as { _load: Load };
const originalLoad = loader._load;
loader._load = function (request, parent, isMain) {
  if (request === 'vscode') return fakeVscode;
  if (request === './vscode/mcpHealth' && parent?.filename?.endsWith('extension.ts')) return { McpHealth: FakeMcpHealth };
  return originalLoad.call(this, request, parent, isMain);
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const extension = require('../../../src/extension') as typeof import('../../../src/extension');

function context(): { subscriptions: Array<{ dispose(): unknown }>; extensionMode: number } {
  return { subscriptions: [], extensionMode: fakeVscode.ExtensionMode.Production };
}

/** activate() starts the extension on the next turn of the event loop; the notification follows the rejected start. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

void describe('activation failure shown to the user', () => {
  // extension.ts also writes the failure to the developer console; kept out of the test output.
  before(() => mock.method(console, 'error', () => undefined));
  after(async () => {
    mock.restoreAll();
    loader._load = originalLoad;
    await extension.deactivate();
  });
  beforeEach(() => {
    shown.length = 0;
    seen.loggedErrors.length = 0;
    behaviour.failConstruction = undefined;
    behaviour.failStart = undefined;
    nextChoice = undefined;
  });

  void it('shows "MCP Health failed to start" when constructing the extension throws, and rethrows for the host', async () => {
    behaviour.failConstruction = new Error('no output channel');
    assert.throws(() => extension.activate(context() as never), /no output channel/);
    await settle();
    assert.deepEqual(
      shown,
      [{ message: '[xx] MCP Health n\u2019a pas d\u00e9marr\u00e9 : no output channel', items: [] }],
      'an error notification, translated, without Show Log (there is no log yet)',
    );
  });

  void it('shows the failure of start() after activate() returned, with Show Log opening the log', async () => {
    behaviour.failStart = new Error('discovery exploded');
    nextChoice = '[xx] Show Log';
    extension.activate(context() as never);
    assert.deepEqual(shown, [], 'nothing is shown before start() has run');
    await settle();
    assert.deepEqual(shown, [{ message: '[xx] MCP Health n\u2019a pas d\u00e9marr\u00e9 : discovery exploded', items: ['[xx] Show Log'] }]);
    assert.equal(seen.logShown, 1, 'Show Log opened the log');
    assert.equal(seen.loggedErrors.length, 1);
    assert.match(seen.loggedErrors[0] ?? '', /^failed to start: Error: discovery exploded\n\s+at /, 'the log has the stack');
  });

  void it('shows nothing when the extension starts', async () => {
    extension.activate(context() as never);
    await settle();
    assert.deepEqual(shown, []);
  });
});
