// check --format github: workflow commands that put an annotation on the config file, at the server's line.

import * as path from 'node:path';
import type { Verdict } from './ci';

/** The data part of a workflow command: %, CR and LF are escaped. */
function data(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value: additionally : and , which separate properties. */
function property(text: string): string {
  return data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** Errors for what fails the run, warnings for what is wrong but allowed; nothing for a healthy server. */
export function githubAnnotations(results: readonly Verdict[], cwd: string): string[] {
  const lines: string[] = [];
  for (const result of results) {
    const { report } = result;
    const level = result.failing.length ? 'error' : result.conditions.length ? 'warning' : null;
    if (!level) continue;
    const relative = path.relative(cwd, report.source.file);
    const file = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : report.source.file;
    const what = result.failing.length ? result.failing : result.conditions;
    const title = `MCP server ${report.name}: ${what.join(', ')}`;
    lines.push(`::${level} file=${property(file)},line=${report.source.line},col=${report.source.column},title=${property(title)}::${data(result.text)}`);
  }
  return lines;
}
