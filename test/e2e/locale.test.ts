// Translation in a real VS Code (code-server), end to end: MCP Health installed as a user has it, with a pseudo-locale
// bundle (`l10n/bundle.l10n.qps-ploc.json`, made from the committed English bundle), and the editor running in VS Code's
// pseudo-locale. The consent question and the tree's state label are built in src/present (through @vscode/l10n, fed
// VS Code's bundle at activation); the notification's Allow button comes from the adapters (vscode.l10n). All must read
// translated. The extension is copied to a temporary folder, so no pseudo bundle is left in the repository or a VSIX.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getL10nPseudoLocalized } from '@vscode/l10n-dev';
import { launchWorkbenchBrowser, waitForWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/codeServer';
import { findNotification } from './harness/notifications';
import { repoRoot } from './harness/paths';
import { workbenchUrl } from './harness/workbenchUrl';
import { waitFor } from '../helpers/wait';

const screenshots = path.join(repoRoot, 'test-results', 'locale');
const recorder = path.join(repoRoot, 'test', 'fixtures', 'servers', 'start-recorder.mjs');
const LOCALE = 'qps-ploc';
const SHIPPED = ['package.json', 'package.nls.json', 'l10n', 'dist', 'media', 'LICENSE', 'README.md', 'CHANGELOG.md'];

type Bundle = Record<string, string | { message: string; comment: string[] }>;
const english = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.json'), 'utf8')) as Bundle;
const pseudo = getL10nPseudoLocalized(english) as Bundle;

function translated(key: string, ...args: Array<string | number>): string {
  const entry = pseudo[key];
  assert.ok(entry !== undefined, `no bundle entry ${key}`);
  const message = typeof entry === 'string' ? entry : entry.message;
  return message.replace(/\{(\d+)\}/g, (match, index: string) => String(args[Number(index)] ?? match));
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe(`MCP Health in VS Code's pseudo-locale (${LOCALE})`, { timeout: 240_000 }, () => {
  let server: CodeServer | undefined;
  let workbench: Workbench | undefined;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-health-locale-'));
  const extension = path.join(root, 'extension');
  const languagePack = path.join(root, 'language-pack');
  const workspace = path.join(root, 'workspace');
  const record = path.join(root, 'starts.txt');

  before(() => {
    assert.ok(fs.existsSync(path.join(repoRoot, 'dist', 'extension.js')), 'build first (node esbuild.js)');
    fs.mkdirSync(extension);
    for (const entry of SHIPPED) fs.cpSync(path.join(repoRoot, entry), path.join(extension, entry), { recursive: true });
    fs.writeFileSync(path.join(extension, 'l10n', `bundle.l10n.${LOCALE}.json`), JSON.stringify(pseudo, null, 2));
    // VS Code runs in a language only when a language pack provides it; this one provides the pseudo-locale with no
    // translations of its own (the workbench stays English), which is all extensions need to get their bundles.
    fs.mkdirSync(path.join(languagePack, 'translations'), { recursive: true });
    fs.writeFileSync(path.join(languagePack, 'translations', 'main.i18n.json'), JSON.stringify({ version: '1.0.0', contents: {} }));
    fs.writeFileSync(
      path.join(languagePack, 'package.json'),
      JSON.stringify({
        name: 'pseudo-language-pack',
        publisher: 'mcp-health-test',
        version: '0.0.1',
        engines: { vscode: '*' },
        contributes: {
          localizations: [
            {
              languageId: LOCALE,
              languageName: 'Pseudo',
              localizedLanguageName: 'Pseudo',
              translations: [{ id: 'vscode', path: './translations/main.i18n.json' }],
            },
          ],
        },
      }),
    );
    const mcpJson = path.join(workspace, '.vscode', 'mcp.json');
    fs.mkdirSync(path.dirname(mcpJson), { recursive: true });
    // One server nobody allowed yet: nothing starts, the tree says why and the consent question is asked.
    fs.writeFileSync(
      mcpJson,
      JSON.stringify({ servers: { solo: { type: 'stdio', command: 'node', args: [recorder, record, 'solo'] } } }, null, 2),
    );
    fs.mkdirSync(screenshots, { recursive: true });
  });

  after(async () => {
    await workbench?.close();
    await server?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("asks the consent question and labels the tree in the editor's language", async () => {
    server = await startCodeServer({
      linkedExtensions: [extension, languagePack],
      extraArgs: ['--locale', LOCALE],
      userSettings: { 'security.workspace.trust.enabled': false, 'mcpHealth.discovery.includeUserConfigs': false },
    });
    // The language pack index the server resolves a locale by, as it writes it after scanning installed extensions.
    fs.writeFileSync(
      path.join(server.userDataDir, 'languagepacks.json'),
      JSON.stringify({
        [LOCALE]: {
          hash: 'mcphealthpseudo',
          label: 'Pseudo',
          extensions: [{ extensionIdentifier: { id: 'mcp-health-test.pseudo-language-pack' }, version: '0.0.1' }],
          translations: { vscode: path.join(languagePack, 'translations', 'main.i18n.json') },
        },
      }),
    );
    workbench = await launchWorkbenchBrowser();
    const { page } = workbench;
    await page.goto(workbenchUrl(server, workspace));
    await waitForWorkbench(page, 90_000);

    const question = translated('MCP Health found 1 server in {0}. Start watching it?', '.vscode/mcp.json');
    const toast = await findNotification(page, new RegExp(escape(question)), 90_000).catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(screenshots, 'locale-no-notification.png') });
      throw error;
    });
    assert.ok(
      await toast
        .locator('.monaco-button', { hasText: translated('Allow') })
        .first()
        .isVisible(),
      'the Allow button, translated',
    );

    await page.locator('.part.activitybar [aria-label^="MCP Health"]').first().click();
    const label = translated('waiting for consent/server state');
    await waitFor(
      'the tree row in the pseudo-locale',
      async () => {
        const rows = (await page.locator('.part.sidebar .monaco-list-row').allInnerTexts()).join('\n');
        return new RegExp(`^solo\\s*${escape(label)}`, 'm').test(rows) && rows;
      },
      30_000,
    );
    await page.screenshot({ path: path.join(screenshots, 'locale.png') });
    assert.ok(!fs.existsSync(record), 'nothing started without consent');
  });
});
