// The translation mechanism of the shared presentation layer, end to end in one process: the modules are loaded first
// (as the extension loads them before activate() configures the bundle), then @vscode/l10n gets a pseudo-locale made
// from the committed bundle, as VS Code's bundle would be handed over at activation. Display text must come out
// translated; what the CLI prints as JSON (state identifiers) must not.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as l10n from '@vscode/l10n';
import { getL10nPseudoLocalized } from '@vscode/l10n-dev';
import { diagnosticReport, serverReport } from '../../../src/cli/format';
import { consentMessage, modeLabels } from '../../../src/present/consentModel';
import { detailRows } from '../../../src/present/details';
import { dashboardView } from '../../../src/present/dashboardModel';
import { serverView } from '../../../src/present/serverView';
import { groupNotices, NotificationPolicy } from '../../../src/present/notificationPolicy';
import { describeState, stateLabels } from '../../../src/present/states';
import { healthSentence, summarize } from '../../../src/present/summary';
import { buildTree } from '../../../src/present/treeModel';
import { status } from './fixtures';

const ROOT = path.resolve(__dirname, '../../..');
const english = JSON.parse(readFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.json'), 'utf8')) as Parameters<
  typeof getL10nPseudoLocalized
>[0];
const pseudo = getL10nPseudoLocalized(english) as Record<string, string | { message: string }>;

/** The pseudo-locale text of a bundle key, with `{n}` filled in as the runtime does. */
function translated(key: string, ...args: Array<string | number>): string {
  const entry = pseudo[key];
  assert.ok(entry !== undefined, `no bundle entry ${key}`);
  const message = typeof entry === 'string' ? entry : entry.message;
  return message.replace(/\{(\d+)\}/g, (match, index: string) => String(args[Number(index)] ?? match));
}

/** Letters the pseudo-locale uses and the English source never does. */
const PSEUDO_LETTERS = /[\u0100-\u024f\u1e00-\u1eff]/;

void describe('the presentation layer under a translated bundle', () => {
  before(() => {
    l10n.config({ contents: pseudo as Record<string, string> });
  });

  void it('translates state labels when they are read, not when the module loaded', () => {
    assert.equal(stateLabels.up, translated('up/server state: answering its probes'));
    assert.equal(stateLabels['needs-consent'], translated('waiting for consent/server state'));
    assert.notEqual(stateLabels.down, 'down');
    assert.equal(modeLabels.off, translated('off: list only, never start'));
  });

  void it('asks the consent question as one translated sentence, with the count and the file filled in', () => {
    const waiting = [
      status('a', { state: 'needs-consent' }),
      status('b', { state: 'needs-consent' }),
      status('c', { state: 'needs-consent' }),
    ];
    assert.equal(
      consentMessage(waiting, () => '.vscode/mcp.json'),
      translated('MCP Health found {0} servers in {1}. Start watching them?', 3, '.vscode/mcp.json'),
    );
    assert.equal(
      consentMessage(waiting.slice(0, 1), () => '.vscode/mcp.json'),
      translated('MCP Health found 1 server in {0}. Start watching it?', '.vscode/mcp.json'),
    );
  });

  void it('translates the state line, the detail rows, the counts, notifications, the tree and the dashboard texts', () => {
    const down = status('db', { state: 'down', lastError: { kind: 'timeout', message: 'no answer' }, nextRetryAt: 8_000 });
    assert.equal(
      describeState(down, 0),
      [translated('down/server state: not answering'), translated('timed out'), translated('retrying in {0} s', 8)].join(' · '),
    );
    const labels = detailRows(down).map((row) => row.label);
    assert.ok(labels.includes(translated('last error')), labels.join(', '));
    assert.equal(healthSentence(summarize([status('a'), down])), translated('{0} of {1} monitored servers healthy', 1, 2));
    const notice = new NotificationPolicy().decide({ id: 'db', from: 'up', to: 'down', reason: 'no answer', status: down }, 'errors', 0);
    assert.equal(notice?.message, translated('MCP server "{0}" is down: {1}', 'db', 'no answer'));
    const group = groupNotices([
      { id: 'a', name: 'a', to: 'down', notice: { severity: 'error', message: 'x', recovery: false } },
      { id: 'b', name: 'b', to: 'down', notice: { severity: 'error', message: 'y', recovery: false } },
    ]);
    assert.equal(group?.message, translated('{0} MCP servers are down: {1}', 2, '"a", "b"'));
    const user = status('u', { config: { source: { file: '/home/me/.cursor/mcp.json', folder: undefined, scope: 'user' } } });
    const tree = buildTree([status('w'), user], [], [{ path: '/ws/app', name: 'app' }], (file) => file);
    const labels2 = tree.roots.map((id) => {
      const node = tree.get(id);
      return node?.kind === 'group' ? node.label : '';
    });
    assert.deepEqual(labels2, ['app', translated('User/tree group of the servers from user-level configuration files')]);
    const auth = serverView(status('auth', { state: 'auth-required', lastError: { kind: 'auth', message: 'no' } }));
    assert.equal(auth.nextStep, translated('Add the credentials it expects to the server\'s "headers"'));
    assert.equal(auth.causeLine, translated('{0}. Next: {1}', translated('The server asks for credentials'), auth.nextStep));
    // The core's English never reaches a translated view: not in the cause, not in a row that quotes it.
    const sandbox = { filesystem: { allowWrite: [], denyRead: [], denyWrite: [] }, network: { allowedDomains: [], deniedDomains: [] } };
    const unsandboxed = serverView(
      status('s', {
        state: 'sandbox-unavailable',
        config: { sandbox },
        lastError: { kind: 'sandbox', message: 'no bwrap', code: 'SANDBOX_NO_BWRAP' },
      }),
    );
    const bwrap = translated('Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap)');
    assert.equal(unsandboxed.nextStep, bwrap);
    assert.equal(unsandboxed.details.find((row) => row.key === 'sandbox')?.value, translated('sandboxed: not started: {0}', bwrap));
    // The webview's own words travel with the data, translated, their placeholders left for the page to fill.
    const { texts } = dashboardView([down]);
    assert.equal(texts.ping, translated('Ping'));
    assert.equal(texts.stats, translated('p50 {0} · p95 {1} · uptime {2} · restarts {3}'));
    assert.match(texts.stats, /\{0\}.*\{1\}.*\{2\}.*\{3\}/);
  });

  void it('keeps the CLI JSON in identifiers: states, error kinds and fields stay as they are', () => {
    const statuses = [
      status('up-one'),
      status('down-one', { state: 'down', lastError: { kind: 'exited', message: 'bye', exitCode: 1 } }),
      status('waiting-one', { state: 'needs-consent' }),
      status('restricted', { state: 'untrusted' }),
    ];
    const reports = statuses.map(serverReport);
    assert.deepEqual(
      reports.map((report) => report.state),
      ['up', 'down', 'needs-consent', 'untrusted'],
    );
    assert.equal(reports[1]?.error?.kind, 'exited');
    const document = JSON.stringify({
      servers: reports,
      diagnostics: [diagnosticReport({ file: '/ws/app/.vscode/mcp.json', line: 1, column: 1, severity: 'error', message: 'bad' })],
    });
    assert.doesNotMatch(document, PSEUDO_LETTERS, 'translated text reached the CLI JSON');
    // The same run does translate: the check above is not vacuous.
    assert.match(describeState(statuses[1]!), PSEUDO_LETTERS);
  });
});
