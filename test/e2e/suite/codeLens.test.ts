// The config-file lenses and hover inside a real extension host, through VS Code's own provider commands
// (vscode.executeCodeLensProvider / executeHoverProvider): what the editor renders for test/fixtures/workspace.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ProbeResult } from '../../../src/core/model';
import type { McpHealthApi } from '../../../src/vscode/api';
import { requestScreenshot } from '../harness/screenshots';
import { activateExtension, byName, waitFor, waitForState, workspaceRoot } from './util';

const OUR_COMMANDS = ['mcpHealth.pingNow', 'mcpHealth.reconnect', 'mcpHealth.showLog', 'mcpHealth.allow', 'mcpHealth.supplyInput'];

/** MCP Health's lenses of a document, as `line: title` (VS Code's own MCP lenses on the same file are left out). */
async function ourLenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
  // The state lens has no command (plain text); coming back through the API it keeps only its title: `$(icon) state...`.
  const isOurState = (lens: vscode.CodeLens) => lens.command?.command === '' && /^\$\([\w-]+\) /.test(lens.command.title);
  return lenses.filter((lens) => OUR_COMMANDS.includes(lens.command?.command ?? '') || isOurState(lens));
}

/** Per line: the state text first (the lens without a command), then the actions in the order given. */
function byLine(lenses: readonly vscode.CodeLens[]): Map<number, string[]> {
  const lines = new Map<number, string[]>();
  const isState = (lens: vscode.CodeLens) => !lens.command?.command;
  for (const lens of [...lenses.filter(isState), ...lenses.filter((lens) => !isState(lens))]) {
    lines.set(lens.range.start.line, [...(lines.get(lens.range.start.line) ?? []), lens.command?.title ?? '']);
  }
  return lines;
}

export function defineCodeLensTests(): void {
  describe('status in the config file (CodeLens and hover)', function () {
    let api: McpHealthApi;
    let uri: vscode.Uri;
    let document: vscode.TextDocument;
    const config = () => vscode.workspace.getConfiguration('mcpHealth');
    const lineOf = (name: string) =>
      document
        .getText()
        .split('\n')
        .findIndex((line) => line.includes(`"${name}": {`));

    before(async function () {
      ({ api } = await activateExtension());
      uri = vscode.Uri.file(path.join(workspaceRoot(), '.vscode', 'mcp.json'));
      document = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(document);
      await waitForState(api, 'everything', ['up'], 30_000);
    });

    after(async function () {
      await config().update('codeLens.enabled', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    it('puts a lens above every server entry with the state words of the tree, and actions on the right server', async function () {
      const lines = await waitFor(
        'a lens with a round trip above everything',
        async () => {
          const found = byLine(await ourLenses(uri));
          return /^\$\(pass-filled\) up · [\d.]+ m?s/.test(found.get(lineOf('everything'))?.[0] ?? '') && found;
        },
        30_000,
      );
      assert.deepEqual(lines.get(lineOf('everything'))?.slice(1), ['Ping', 'Reconnect', 'Show Log']);
      assert.match(lines.get(lineOf('broken'))?.[0] ?? '', /config error/);
      assert.deepEqual(lines.get(lineOf('broken'))?.slice(1), ['Show Log']);
      assert.equal(lines.size, 4, `one lens line per server: ${JSON.stringify([...lines])}`);
      await requestScreenshot('codelens');

      const ping = (await ourLenses(uri)).find(
        (lens) => lens.range.start.line === lineOf('everything') && lens.command?.command === 'mcpHealth.pingNow',
      );
      const everything = byName(api, 'everything');
      assert.deepEqual(ping?.command?.arguments, [`server:${everything?.config.id}`]);
      const results = await vscode.commands.executeCommand<ReadonlyMap<string, ProbeResult>>(
        ping?.command?.command ?? '',
        ...(ping?.command?.arguments ?? []),
      );
      assert.deepEqual([...results.keys()], [everything?.config.id]);
      assert.equal(results.get(everything?.config.id ?? '')?.outcome, 'ok');
    });

    it('shows the details on hover over a server name, and nothing elsewhere', async function () {
      const line = lineOf('everything');
      const column = document.lineAt(line).text.indexOf('everything') + 2;
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        uri,
        new vscode.Position(line, column),
      );
      const text = hovers
        .flatMap((hover) => hover.contents.map((content) => (typeof content === 'string' ? content : content.value)))
        .join('\n');
      assert.match(text, /\*\*everything\*\* — up/);
      assert.match(text, /- stdio: node /);
      assert.match(text, /\[Ping\]\(command:mcpHealth\.pingNow\?/);
      const elsewhere = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        uri,
        new vscode.Position(line + 1, 8),
      );
      assert.ok(
        !elsewhere.some((hover) =>
          hover.contents.some((content) => (typeof content === 'string' ? content : content.value).includes('**everything**')),
        ),
      );
    });

    it('follows unsaved edits: lines typed above an entry move its lens at once', async function () {
      const before = lineOf('everything');
      const original = document.getText();
      const edit = new vscode.WorkspaceEdit();
      edit.insert(uri, new vscode.Position(before, 0), '    // one\n    // two\n');
      assert.ok(await vscode.workspace.applyEdit(edit));
      try {
        assert.ok(document.isDirty);
        const moved = await waitFor(
          'the lens two lines lower',
          async () => {
            const found = byLine(await ourLenses(uri));
            return found.has(before + 2) && !found.has(before) && found;
          },
          10_000,
        );
        assert.match(moved.get(before + 2)?.[0] ?? '', /up/);
      } finally {
        // Back to the fixture's exact text, saved, so nothing after this test (or in git) sees the edit.
        const undo = new vscode.WorkspaceEdit();
        undo.delete(uri, new vscode.Range(before, 0, before + 2, 0));
        await vscode.workspace.applyEdit(undo);
        assert.equal(document.getText(), original);
        await document.save();
      }
      await waitFor('back on its line', async () => byLine(await ourLenses(uri)).has(before), 10_000);
    });

    it('mcpHealth.codeLens.enabled = false removes every lens and hover; true brings them back', async function () {
      await config().update('codeLens.enabled', false, vscode.ConfigurationTarget.Global);
      await waitFor('no lens of MCP Health', async () => (await ourLenses(uri)).length === 0, 10_000);
      const line = lineOf('everything');
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        uri,
        new vscode.Position(line, document.lineAt(line).text.indexOf('everything') + 2),
      );
      assert.ok(
        !hovers.some((hover) =>
          hover.contents.some((content) => (typeof content === 'string' ? content : content.value).includes('**everything**')),
        ),
      );
      await config().update('codeLens.enabled', undefined, vscode.ConfigurationTarget.Global);
      await waitFor('the lenses back', async () => (await ourLenses(uri)).length > 0, 10_000);
    });
  });
}
