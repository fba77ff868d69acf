// package.json's command contributions, the menus and the code agree with the one table of command ids, both ways.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Commands, ViewCommands } from '../../../src/present/commandIds';

const ROOT = path.resolve(__dirname, '../../..');

interface Manifest {
  readonly contributes: {
    readonly commands: readonly { readonly command: string }[];
    readonly menus: Readonly<Record<string, readonly { readonly command: string }[]>>;
    readonly views: Readonly<Record<string, readonly { readonly id: string }[]>>;
  };
}

const manifestText = readFileSync(path.join(ROOT, 'package.json'), 'utf8');
const manifest = JSON.parse(manifestText) as Manifest;
// The walkthrough and welcome-view texts, with their command: links, live in package.nls.json behind %key% placeholders.
const nlsText = readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8');
const tableIds = Object.values(Commands) as string[];
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}
const sources = sourceFiles(path.join(ROOT, 'src')).map((file) => ({ file: path.relative(ROOT, file), text: readFileSync(file, 'utf8') }));

void describe('command ids', () => {
  void it('the table and contributes.commands hold the same commands', () => {
    assert.deepEqual(sorted(manifest.contributes.commands.map((entry) => entry.command)), sorted(tableIds));
    assert.equal(new Set(tableIds).size, tableIds.length, 'no id twice in the table');
    for (const [key, id] of Object.entries(Commands)) assert.equal(id, `mcpHealth.${key}`, 'each key is the id without its prefix');
  });

  void it('every menu entry names a command of the table', () => {
    for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
      for (const entry of entries) assert.ok(tableIds.includes(entry.command), `${menu}: ${entry.command}`);
    }
  });

  void it('every command: link in the manifest (walkthrough, welcome views) names a table or view command', () => {
    const links = [...(manifestText + nlsText).matchAll(/command:(mcpHealth\.[\w.]+)/g)].map((match) => match[1]);
    assert.ok(links.length > 0);
    for (const link of links) assert.ok(tableIds.includes(link) || Object.values<string>(ViewCommands).includes(link), link);
  });

  void it('the view commands belong to a contributed view', () => {
    const viewIds = Object.values(manifest.contributes.views)
      .flat()
      .map((view) => view.id);
    for (const id of Object.values(ViewCommands)) assert.ok(viewIds.includes(id.replace(/\.focus$/, '')), id);
  });

  void it('every command of the table is registered exactly once in the code', () => {
    const registered = sources.flatMap(({ text }) =>
      [...text.matchAll(/\b(?:register|registerCommand)\(\s*Commands\.(\w+)\b/g)].map((match) => match[1]),
    );
    assert.deepEqual(sorted(registered), sorted(Object.keys(Commands)));
    assert.equal(registered.length, tableIds.length, 'no command registered twice');
  });

  void it('no source file but the table spells a command id as a string', () => {
    const spelled = sources
      .filter(({ file }) => file !== path.join('src', 'present', 'commandIds.ts'))
      .flatMap(({ file, text }) =>
        [...text.matchAll(/['"`](mcpHealth\.[\w.]+)['"`]/g)]
          .filter((match) => tableIds.includes(match[1]) || Object.values<string>(ViewCommands).includes(match[1]))
          .map((match) => `${file}: ${match[1]}`),
      );
    assert.deepEqual(spelled, []);
  });
});
