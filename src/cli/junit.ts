// check --junit: one JUnit test case per server, so CI systems show MCP servers beside the other tests. The failure
// text is the cause and its next step. Follows the Jenkins JUnit schema (test/fixtures/junit/jenkins-junit.xsd).

import * as path from 'node:path';
import type { Verdict } from './ci';

/** XML 1.0 has no escape for most control characters: they are dropped. */
function xml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function seconds(ms: number | null): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

export interface JunitRun {
  readonly results: readonly Verdict[];
  readonly startedAt: Date;
  readonly durationMs: number;
  readonly hostname: string;
  readonly cwd: string;
}

export function junitXml(run: JunitRun): string {
  const failures = run.results.filter((result) => result.failing.length > 0).length;
  const timestamp = run.startedAt.toISOString().replace(/\.\d{3}Z$/, '');
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-health" tests="${run.results.length}" failures="${failures}" errors="0" time="${seconds(run.durationMs)}">`,
    `  <testsuite name="mcp-health check" tests="${run.results.length}" failures="${failures}" errors="0" skipped="0" time="${seconds(run.durationMs)}" timestamp="${timestamp}" hostname="${xml(run.hostname)}">`,
  ];
  for (const result of run.results) {
    const { report } = result;
    const relative = path.relative(run.cwd, report.source.file);
    const file = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : report.source.file;
    const attributes = `name="${xml(report.name)}" classname="${xml(`mcp-health.${file}`)}" time="${seconds(report.rttMs)}" file="${xml(file)}" line="${report.source.line}"`;
    if (result.failing.length === 0) {
      lines.push(`    <testcase ${attributes}/>`);
      continue;
    }
    const message = `${report.name} is ${report.state}${result.failing.includes('drift') ? ', tools drifted' : ''}: ${result.text}`;
    lines.push(`    <testcase ${attributes}>`);
    lines.push(
      `      <failure type="${xml(result.failing.join(','))}" message="${xml(message)}">${xml(`${result.text}\nConfigured at ${file}:${report.source.line}`)}</failure>`,
    );
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
