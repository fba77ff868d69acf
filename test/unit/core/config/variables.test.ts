import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveVariables, type VariableContext, type VariableSyntax } from '../../../../src/core/config/variables';
import { parseConfigText } from '../../../../src/core/config/discover';
import { brief, parseContext } from './helpers';

function context(syntax: VariableSyntax, overrides: Partial<VariableContext> = {}): VariableContext {
  return {
    syntax,
    folder: '/work/proj',
    workspaceFolders: ['/work/proj', '/work/lib'],
    userHome: '/home/u',
    platform: 'linux',
    env: { TOKEN: 'abc', EMPTY: '' },
    ...overrides,
  };
}

void describe('VS Code variables', () => {
  void it('resolves every editor variable', () => {
    const cases: Array<[string, string]> = [
      ['${workspaceFolder}/x', '/work/proj/x'],
      ['${workspaceFolderBasename}', 'proj'],
      ['${workspaceFolder:lib}/y', '/work/lib/y'],
      ['${userHome}', '/home/u'],
      ['${env:TOKEN}', 'abc'],
      ['a${pathSeparator}b${/}c', 'a/b/c'],
    ];
    for (const [input, expected] of cases) assert.equal(resolveVariables(input, context('vscode')).value, expected, input);
  });

  void it('uses the Windows separator and case-insensitive environment on win32', () => {
    const result = resolveVariables('${env:path}${/}${pathSeparator}', context('vscode', { platform: 'win32', env: { Path: 'C:\\bin' } }));
    assert.equal(result.value, 'C:\\bin\\\\');
  });

  void it('leaves an unknown variable literal with a problem, and reads an unset env var as empty with a problem', () => {
    const unknown = resolveVariables('${config:editor.fontSize}', context('vscode'));
    assert.equal(unknown.value, '${config:editor.fontSize}');
    assert.deepEqual(unknown.problems, ['unknown variable ${config:editor.fontSize}; left as written']);
    const unset = resolveVariables('x${env:NOPE}y', context('vscode'));
    assert.equal(unset.value, 'xy');
    assert.deepEqual(unset.problems, ['environment variable NOPE is not set; it reads as empty']);
  });

  void it('refuses an ambiguous ${workspaceFolder} in a user file of a multi-root workspace', () => {
    const result = resolveVariables('${workspaceFolder}', context('vscode', { folder: undefined }));
    assert.equal(result.value, '${workspaceFolder}');
    assert.match(result.problems[0], /ambiguous in a multi-root workspace/);
    assert.equal(
      resolveVariables('${workspaceFolder}', context('vscode', { folder: undefined, workspaceFolders: ['/only'] })).value,
      '/only',
    );
  });

  void it('fills ${input:id} from supplied values and lists the missing ones', () => {
    const filled = resolveVariables('${input:a}-${input:b}-${input:b}', context('vscode', { inputs: { a: 'AAAA' } }));
    assert.equal(filled.value, 'AAAA-${input:b}-${input:b}');
    assert.deepEqual(filled.missingInputs, ['b']);
    assert.deepEqual(filled.inputValues, ['AAAA']);
  });

  void it('never resolves a substituted value again, so references cannot loop', () => {
    const viaEnv = resolveVariables('${env:LOOP}', context('vscode', { env: { LOOP: '${env:LOOP}' } }));
    assert.equal(viaEnv.value, '${env:LOOP}');
    const viaInputs = resolveVariables('${input:a}', context('vscode', { inputs: { a: '${input:b}', b: '${input:a}' } }));
    assert.equal(viaInputs.value, '${input:b}');
    assert.deepEqual(viaInputs.missingInputs, []);
    const viaShell = resolveVariables('${A}', context('shell-default', { env: { A: '${A}' } }));
    assert.equal(viaShell.value, '${A}');
  });
});

void describe('per-format syntax', () => {
  void it('.mcp.json: ${VAR}, ${VAR:-default}, bare $VAR literal, editor variables unknown', () => {
    const ctx = context('shell-default');
    assert.equal(resolveVariables('${TOKEN}', ctx).value, 'abc');
    assert.equal(resolveVariables('${MISSING:-fallback}', ctx).value, 'fallback');
    assert.equal(resolveVariables('${EMPTY:-fallback}', ctx).value, '', 'a set but empty variable wins over the default');
    assert.equal(resolveVariables('$TOKEN and ${env:TOKEN}', ctx).value, '$TOKEN and ${env:TOKEN}');
    const missing = resolveVariables('${MISSING}', ctx);
    assert.equal(missing.value, '${MISSING}');
    assert.deepEqual(missing.problems, ['environment variable MISSING is not set and has no default; left as written']);
  });

  void it('Gemini: $VAR and ${VAR}', () => {
    assert.equal(resolveVariables('$TOKEN/${TOKEN}', context('shell')).value, 'abc/abc');
  });

  void it('Windsurf and Roo: only ${env:X}', () => {
    const result = resolveVariables('${env:TOKEN} ${workspaceFolder}', context('env-colon'));
    assert.equal(result.value, 'abc ${workspaceFolder}');
    assert.deepEqual(result.problems, ['unknown variable ${workspaceFolder}; left as written']);
  });

  void it('Cursor: editor variables without inputs', () => {
    const result = resolveVariables('${env:TOKEN} ${userHome} ${input:x}', context('cursor'));
    assert.equal(result.value, 'abc /home/u ${input:x}');
    assert.deepEqual(result.missingInputs, []);
  });

  void it('Claude Desktop, Cline, Codex, Zed: nothing is substituted', () => {
    assert.equal(resolveVariables('${TOKEN} ${env:TOKEN} $TOKEN', context('none')).value, '${TOKEN} ${env:TOKEN} $TOKEN');
  });

  void it('Continue: ${{ secrets.X }} is reported as unresolvable here', () => {
    const result = resolveVariables('${{ secrets.API_KEY }}', context('continue'));
    assert.equal(result.value, '${{ secrets.API_KEY }}');
    assert.deepEqual(result.problems, ['${{ secrets.API_KEY }} is filled in by Continue itself and cannot be resolved here']);
  });
});

void describe('variables inside a server', () => {
  void it('warns at the value that holds an unknown variable, and keeps the server', () => {
    const text = '{\n  "servers": {\n    "s": { "command": "run", "args": ["${nope}"] }\n  }\n}\n';
    const { servers, diagnostics } = parseConfigText(text, '/work/proj/.vscode/mcp.json', 'vscode', parseContext());
    assert.deepEqual(servers[0].args, ['${nope}']);
    assert.deepEqual(brief(diagnostics), ['3:39 warning [s] server "s": unknown variable ${nope}; left as written']);
  });
});

void describe('opencode variables', () => {
  void it('{env:X} is substituted, an unset one reads as empty; {file:…} and ${X} stay as written', () => {
    const resolve = (text: string) => resolveVariables(text, context('opencode'));
    assert.equal(resolve('Bearer {env:TOKEN}').value, 'Bearer abc');
    assert.deepEqual(resolve('{env:NOPE}x'), {
      value: 'x',
      missingInputs: [],
      inputValues: [],
      problems: ['environment variable NOPE is not set; it reads as empty'],
    });
    const file = resolve('{file:~/.secrets/key}');
    assert.equal(file.value, '{file:~/.secrets/key}');
    assert.match(file.problems[0] ?? '', /read by opencode from that file/);
    assert.equal(resolve('${TOKEN} $TOKEN').value, '${TOKEN} $TOKEN');
  });
});
