// Variable substitution, one syntax per client. Always a single pass: a substituted value is never scanned again,
// so a value that itself contains `${...}` stays literal and no reference can loop.

import type { ConfigFormat } from '../model';
import type { VariableSources } from './types';
import { lookupEnv, pathApi } from './platformPaths';

export type VariableSyntax =
  | 'vscode' // ${workspaceFolder}, ${workspaceFolder:name}, ${workspaceFolderBasename}, ${userHome}, ${env:X}, ${pathSeparator}, ${/}, ${input:id}
  | 'cursor' // as vscode, without inputs
  | 'env-colon' // ${env:X} only
  | 'shell-default' // ${VAR}, ${VAR:-default}; bare $VAR stays literal
  | 'shell' // $VAR, ${VAR}
  | 'continue' // ${{ secrets.X }} / ${{ inputs.X }}: only Continue can fill these
  | 'opencode' // {env:X} (unset reads as empty), {file:path} (not read here)
  | 'none';

export const VARIABLE_SYNTAX: Readonly<Record<ConfigFormat, VariableSyntax>> = {
  vscode: 'vscode',
  'vscode-settings': 'vscode',
  'mcp-json': 'shell-default',
  'claude-code': 'shell-default',
  cursor: 'cursor',
  'claude-desktop': 'none',
  windsurf: 'env-colon',
  cline: 'none',
  roo: 'env-colon',
  gemini: 'shell',
  codex: 'none',
  continue: 'continue',
  zed: 'none',
  kiro: 'shell-default',
  opencode: 'opencode',
  'copilot-cli': 'shell-default',
  antigravity: 'shell',
};

export interface VariableContext extends VariableSources {
  readonly syntax: VariableSyntax;
  /** The folder `${workspaceFolder}` means for this file, if there is exactly one. */
  readonly folder?: string;
}

export interface Resolution {
  readonly value: string;
  /** `${input:id}` ids with no value supplied; the reference stays literal. */
  readonly missingInputs: string[];
  /** Every supplied input value that went into the result: treated as secret. */
  readonly inputValues: string[];
  /** Plain-language warnings: unknown variables, unset environment variables. */
  readonly problems: string[];
}

const PATTERNS: Readonly<Record<Exclude<VariableSyntax, 'none'>, RegExp>> = {
  vscode: /\$\{([^{}]*)\}/g,
  cursor: /\$\{([^{}]*)\}/g,
  'env-colon': /\$\{([^{}]*)\}/g,
  'shell-default': /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
  shell: /\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/g,
  continue: /\$\{\{\s*([^}]*?)\s*\}\}/g,
  opencode: /\{(env|file):([^{}]*)\}/g,
};

export function resolveVariables(text: string, context: VariableContext): Resolution {
  const missingInputs: string[] = [];
  const inputValues: string[] = [];
  const problems: string[] = [];
  if (context.syntax === 'none' || !text.includes(context.syntax === 'opencode' ? '{' : '$'))
    return { value: text, missingInputs, inputValues, problems };
  const env = (name: string): string | undefined => lookupEnv(context.env, name, context.platform);
  const pattern = new RegExp(PATTERNS[context.syntax].source, 'g');

  const value = text.replace(pattern, (match: string, first: string | undefined, second: string | undefined) => {
    switch (context.syntax) {
      case 'shell-default': {
        const name = first ?? '';
        const found = env(name);
        if (found !== undefined) return found;
        if (second !== undefined) return second;
        problems.push(`environment variable ${name} is not set and has no default; left as written`);
        return match;
      }
      case 'shell': {
        const name = first ?? second ?? '';
        const found = env(name);
        if (found !== undefined) return found;
        problems.push(`environment variable ${name} is not set; left as written`);
        return match;
      }
      case 'continue':
        problems.push(`${match} is filled in by Continue itself and cannot be resolved here`);
        return match;
      case 'opencode': {
        const name = (second ?? '').trim();
        if (first === 'file') {
          problems.push(`${match} is read by opencode from that file; not resolved here, left as written`);
          return match;
        }
        const found = env(name);
        if (found !== undefined) return found;
        // opencode substitutes an empty string for an unset variable.
        problems.push(`environment variable ${name} is not set; it reads as empty`);
        return '';
      }
      default:
        return resolveEditorVariable(match, (first ?? '').trim(), context, env, { missingInputs, inputValues, problems });
    }
  });
  return { value, missingInputs, inputValues, problems };
}

function resolveEditorVariable(
  match: string,
  name: string,
  context: VariableContext,
  env: (name: string) => string | undefined,
  out: { missingInputs: string[]; inputValues: string[]; problems: string[] },
): string {
  const colon = name.indexOf(':');
  const kind = colon >= 0 ? name.slice(0, colon) : name;
  const argument = colon >= 0 ? name.slice(colon + 1) : undefined;

  if (kind === 'env' && argument !== undefined) {
    const found = env(argument);
    if (found !== undefined) return found;
    // VS Code substitutes an empty string for an unset variable; say so, since it is a common cause of failures.
    out.problems.push(`environment variable ${argument} is not set; it reads as empty`);
    return '';
  }
  if (context.syntax === 'env-colon') {
    out.problems.push(`unknown variable ${match}; left as written`);
    return match;
  }
  if (kind === 'input' && argument !== undefined && context.syntax === 'vscode') {
    const supplied = context.inputs?.[argument];
    if (supplied === undefined) {
      if (!out.missingInputs.includes(argument)) out.missingInputs.push(argument);
      return match;
    }
    out.inputValues.push(supplied);
    return supplied;
  }
  const path = pathApi(context.platform);
  switch (name) {
    case 'userHome':
      return context.userHome;
    case 'pathSeparator':
    case '/':
      return path.sep;
    case 'workspaceFolder':
    case 'workspaceFolderBasename': {
      const folder = context.folder ?? (context.workspaceFolders.length === 1 ? context.workspaceFolders[0] : undefined);
      if (folder === undefined) {
        out.problems.push(
          context.workspaceFolders.length === 0
            ? `${match} cannot be resolved without an open folder; left as written`
            : `${match} is ambiguous in a multi-root workspace; use \${workspaceFolder:name}; left as written`,
        );
        return match;
      }
      return name === 'workspaceFolder' ? folder : path.basename(folder);
    }
  }
  if (kind === 'workspaceFolder' && argument !== undefined) {
    const folder = context.workspaceFolders.find((candidate) => path.basename(candidate) === argument);
    if (folder !== undefined) return folder;
    out.problems.push(`no open workspace folder is named "${argument}"; ${match} left as written`);
    return match;
  }
  out.problems.push(`unknown variable ${match}; left as written`);
  return match;
}
