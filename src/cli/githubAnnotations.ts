// check --format github: workflow commands that put an annotation on the config file, at the server's line.

import * as path from 'node:path';
import type { Verdict } from './ci';
import { GithubAnnotation } from './output';

/** Errors for what fails the run, warnings for what is wrong but allowed; nothing for a healthy server. */
export function githubAnnotations(results: readonly Verdict[], cwd: string): GithubAnnotation[] {
  const lines: GithubAnnotation[] = [];
  for (const result of results) {
    const { report } = result;
    const level = result.failing.length ? 'error' : result.conditions.length ? 'warning' : null;
    if (!level) continue;
    const relative = path.relative(cwd, report.source.file);
    const file = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : report.source.file;
    const what = result.failing.length ? result.failing : result.conditions;
    const title = `MCP server ${report.name}: ${what.join(', ')}`;
    // Server names and error text are escaped and filtered by GithubAnnotation, the title too.
    lines.push(new GithubAnnotation(level, { file, line: report.source.line, col: report.source.column, title }, result.text));
  }
  return lines;
}
