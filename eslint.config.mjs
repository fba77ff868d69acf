import tseslint from 'typescript-eslint';

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
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }],
      }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The layers: core is pure, mcp does Node I/O, only src/vscode and extension.ts may touch the editor API.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['vscode'], message: 'src/core must not depend on vscode.' },
          { group: ['@modelcontextprotocol/*'], message: 'src/core must not depend on the MCP SDK.' },
          { group: ['../mcp/*', '../vscode/*', '../../mcp/*', '../../vscode/*'], message: 'src/core depends on nothing above it.' },
        ],
      }],
    },
  },
  {
    // The metrics front end runs in the CLI and, loaded lazily from dist/metrics.js, in the extension host.
    files: ['src/metrics/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['vscode'], message: 'src/metrics must not depend on vscode.' },
          { group: ['../vscode/*'], message: 'src/metrics must not depend on the editor adapters.' },
        ],
      }],
    },
  },
  {
    files: ['src/guard/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['vscode'], message: 'src/guard runs outside the editor: no vscode.' },
          { group: ['../vscode/*', '../cli/*'], message: 'src/guard must not depend on the editor adapters or the CLI.' },
        ],
      }],
    },
  },
  {
    // History persistence runs in the CLI (watch --history) and the extension host.
    files: ['src/history/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['vscode'], message: 'src/history runs in the CLI too: no vscode.' },
          { group: ['../vscode/*', '../cli/*'], message: 'src/history must not depend on a front end.' },
        ],
      }],
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['vscode'], message: 'src/mcp must not depend on vscode.' },
          { group: ['../vscode/*'], message: 'src/mcp must not depend on the editor adapters.' },
        ],
      }],
    },
  },
  {
    // One presentation layer for every front end: the editor views and the CLI both draw on src/present, so neither
    // it nor the CLI may reach the editor API or the editor adapters.
    files: ['src/present/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['vscode'], message: 'src/present is shared with the CLI: no vscode.' },
          { group: ['../vscode/*', '../../vscode/*', '../cli/*', '../cli'], message: 'src/present must not depend on a front end.' },
        ],
      }],
    },
  },
  {
    // One writer for everything the CLI prints (src/cli/output.ts): it filters control sequences and GitHub Actions
    // workflow commands, so a direct write would be a path that forgets to.
    files: ['src/cli/**/*.ts', 'src/cli.ts', 'src/guardCli.ts', 'src/bin.ts'],
    ignores: ['src/cli/output.ts'],
    rules: {
      'no-restricted-syntax': ['error',
        {
          selector: "MemberExpression[object.type='MemberExpression'][object.object.name='process'][object.property.name=/^(stdout|stderr)$/][property.name=/^(write|end)$/]",
          message: 'Print through src/cli/output.ts (createCliOutput), which filters what reaches the terminal.',
        },
        { selector: "MemberExpression[object.name='console']", message: 'Print through src/cli/output.ts (createCliOutput), which filters what reaches the terminal.' },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'src/cli.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['vscode'], message: 'The CLI runs outside the editor: no vscode.' },
          { group: ['../vscode/*', './vscode/*'], message: 'The CLI must not depend on the editor adapters; shared views live in src/present.' },
        ],
      }],
    },
  },
);
