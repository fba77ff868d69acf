// package.json's user-facing strings are %key% placeholders resolved through package.nls.json: every placeholder has
// its string and every string is used, so a translation (package.nls.<locale>.json) has exactly these keys to cover.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { getL10nJson } from '@vscode/l10n-dev';

const ROOT = path.resolve(__dirname, '../../..');
const manifestText = readFileSync(path.join(ROOT, 'package.json'), 'utf8');
const nls = JSON.parse(readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, unknown>;
const placeholders = new Set([...manifestText.matchAll(/"%([\w.-]+)%"/g)].map((match) => match[1]));

interface Manifest {
  readonly displayName: string;
  readonly description: string;
  readonly contributes: {
    readonly commands: readonly { readonly command: string; readonly title: string; readonly category: string }[];
    readonly configuration: { readonly properties: Readonly<Record<string, { readonly markdownDescription?: string }>> };
  };
}
const manifest = JSON.parse(manifestText) as Manifest;
const isPlaceholder = (value: string) => /^%[\w.-]+%$/.test(value);

void describe('package.nls.json', () => {
  void it('every %key% of package.json has a string in package.nls.json', () => {
    assert.ok(placeholders.size > 0);
    assert.deepEqual(
      [...placeholders].filter((key) => !(key in nls)),
      [],
    );
  });

  void it('every key of package.nls.json is used in package.json', () => {
    assert.deepEqual(
      Object.keys(nls).filter((key) => !placeholders.has(key)),
      [],
    );
  });

  void it('every value is a non-empty string', () => {
    for (const [key, value] of Object.entries(nls)) assert.ok(typeof value === 'string' && value.trim() !== '', key);
  });

  void it('the name, description, command titles and setting descriptions are placeholders', () => {
    assert.ok(isPlaceholder(manifest.displayName) && isPlaceholder(manifest.description));
    for (const command of manifest.contributes.commands) {
      assert.ok(isPlaceholder(command.title), command.command);
      assert.ok(isPlaceholder(command.category), command.command);
    }
    for (const [name, schema] of Object.entries(manifest.contributes.configuration.properties)) {
      assert.ok(schema.markdownDescription !== undefined && isPlaceholder(schema.markdownDescription), name);
    }
  });
});

void describe('l10n/bundle.l10n.json', () => {
  const bundle = JSON.parse(readFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, unknown>;
  // What `npm run l10n:export` would write, by the exporter itself: every l10n.t (src/present, through @vscode/l10n) and
  // vscode.l10n.t (the adapters) with a literal message, keyed as the runtime looks them up (`message/comment`).
  const exported = (async () => {
    const files = sourceFiles(path.join(ROOT, 'src')).map((file) => ({
      contents: readFileSync(file, 'utf8'),
      extension: path.extname(file),
    }));
    return Object.keys(await getL10nJson(files));
  })();

  void it('holds every message src passes to l10n.t or vscode.l10n.t (run npm run l10n:export after changing one)', async () => {
    const keys = await exported;
    assert.ok(keys.length > 100, `only ${keys.length} messages found: the exporter did not see the sources`);
    assert.deepEqual(
      keys.filter((key) => !(key in bundle)),
      [],
    );
  });

  void it('holds no message src no longer uses', async () => {
    const keys = new Set(await exported);
    assert.deepEqual(
      Object.keys(bundle).filter((key) => !keys.has(key)),
      [],
    );
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}
