// The layer rules in eslint.config.mjs, run as `npm run lint` runs them: an import across a fence is an error, on the
// resolved path (so `../mcp`, which the old relative-path patterns let through, is caught), and so is an import circle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..', '..');

async function importErrors(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: root,
    // Only the import rules: the typed rules need the file in the TypeScript project, and these files are not on disk.
    ruleFilter: ({ ruleId }) => ruleId.startsWith('import-x/'),
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  });
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`);
}

test('src/core importing src/mcp is rejected, however the path is written', async () => {
  for (const specifier of ['../mcp', '../mcp/index', '../mcp/localChannel']) {
    const errors = await importErrors('src/core/fenceProbe.ts', `import * as m from '${specifier}';\nexport const x = m;\n`);
    assert.ok(
      errors.some((error) => error.startsWith('import-x/no-restricted-paths')),
      `${specifier}: ${errors.join('; ')}`,
    );
  }
});

test('src/core importing src/present, and src/mcp importing src/vscode, are rejected', async () => {
  assert.ok(
    (await importErrors('src/core/fenceProbe.ts', "import * as p from '../present/states';\nexport const x = p;\n")).some((e) =>
      e.startsWith('import-x/no-restricted-paths'),
    ),
  );
  assert.ok(
    (await importErrors('src/mcp/fenceProbe.ts', "import * as v from '../vscode/log';\nexport const x = v;\n")).some((e) =>
      e.startsWith('import-x/no-restricted-paths'),
    ),
  );
});

test('the CLI and the editor adapters may not import each other; the CLI may import present and the guard', async () => {
  assert.ok(
    (await importErrors('src/cli/fenceProbe.ts', "import * as v from '../vscode/log';\nexport const x = v;\n")).some((e) =>
      e.startsWith('import-x/no-restricted-paths'),
    ),
  );
  assert.ok(
    (await importErrors('src/vscode/fenceProbe.ts', "import * as c from '../cli/format';\nexport const x = c;\n")).some((e) =>
      e.startsWith('import-x/no-restricted-paths'),
    ),
  );
  assert.deepEqual(
    await importErrors(
      'src/cli/fenceProbe.ts',
      "import * as p from '../present/states';\nimport * as g from '../guard/routeLine';\nexport const x = [p, g];\n",
    ),
    [],
  );
});

test('an allowed import inside the fence is not reported', async () => {
  assert.deepEqual(await importErrors('src/mcp/fenceProbe.ts', "import * as m from '../core/model';\nexport const x = m;\n"), []);
});
