import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The layers as folder zones, checked on resolved paths (so `../mcp`, `../../mcp/index` and `./mcp` all count):
// each entry is a folder and the folders it may import from, besides itself.
const src = (name) => `./src/${name}`;
const everything = ['core', 'mcp', 'present', 'history', 'metrics', 'guard', 'cli', 'vscode'];
const frontEndFiles = ['./src/cli.ts', './src/guardCli.ts', './src/bin.ts', './src/extension.ts'];
const mayImport = {
  core: [],
  mcp: ['core'],
  present: ['core'],
  // History persistence and the exporters are front ends on the core that do Node I/O (the one file reader, the
  // connector that /probe shares with check) through src/mcp.
  history: ['core', 'mcp'],
  metrics: ['core', 'mcp'],
  guard: ['core', 'mcp'],
  cli: ['core', 'mcp', 'present', 'history', 'metrics', 'guard'],
  vscode: ['core', 'mcp', 'present', 'history', 'metrics', 'guard'],
};
const zones = Object.entries(mayImport).map(([folder, allowed]) => ({
  target: src(folder),
  from: [...everything.filter((other) => other !== folder && !allowed.includes(other)).map(src), ...frontEndFiles],
  message: `src/${folder} may import only from ${allowed.length ? allowed.map((name) => `src/${name}`).join(', ') : 'itself'} (see CONTRIBUTING.md, the layers).`,
}));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', '.cache/**', 'test-results/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      // A circle between modules makes load order decide what is undefined at import time; type-only imports are
      // erased and do not count.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // The layers: core is pure, mcp does Node I/O, only src/vscode and extension.ts may touch the editor API.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['vscode'], message: 'src/core must not depend on vscode.' },
            { group: ['@modelcontextprotocol/*'], message: 'src/core must not depend on the MCP SDK.' },
          ],
        },
      ],
    },
  },
  {
    // The metrics front end runs in the CLI and, loaded lazily from dist/metrics.js, in the extension host.
    files: ['src/metrics/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['vscode'], message: 'src/metrics must not depend on vscode.' }],
        },
      ],
    },
  },
  {
    files: ['src/guard/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['vscode'], message: 'src/guard runs outside the editor: no vscode.' }],
        },
      ],
    },
  },
  {
    // History persistence runs in the CLI (watch --history) and the extension host.
    files: ['src/history/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['vscode'], message: 'src/history runs in the CLI too: no vscode.' }],
        },
      ],
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['vscode'], message: 'src/mcp must not depend on vscode.' }],
        },
      ],
    },
  },
  {
    // One presentation layer for every front end: the editor views and the CLI both draw on src/present, so neither
    // it nor the CLI may reach the editor API or the editor adapters.
    files: ['src/present/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['vscode'], message: 'src/present is shared with the CLI: no vscode.' }],
        },
      ],
    },
  },
  {
    // One writer for everything the CLI prints (src/cli/output.ts): it filters control sequences and GitHub Actions
    // workflow commands, so a direct write would be a path that forgets to.
    files: ['src/cli/**/*.ts', 'src/cli.ts', 'src/guardCli.ts', 'src/bin.ts'],
    ignores: ['src/cli/output.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "MemberExpression[object.type='MemberExpression'][object.object.name='process'][object.property.name=/^(stdout|stderr)$/][property.name=/^(write|end)$/]",
          message: 'Print through src/cli/output.ts (createCliOutput), which filters what reaches the terminal.',
        },
        {
          selector: "MemberExpression[object.name='console']",
          message: 'Print through src/cli/output.ts (createCliOutput), which filters what reaches the terminal.',
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'src/cli.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['vscode'], message: 'The CLI runs outside the editor: no vscode.' }],
        },
      ],
    },
  },
);
