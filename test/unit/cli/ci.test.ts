// The CI pieces of check as pure functions: flags, --fail-on verdicts, JUnit escaping, GitHub workflow commands.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCliArgs } from '../../../src/cli/args';
import { runFails, verdicts } from '../../../src/cli/ci';
import type { CiOptions } from '../../../src/cli/ciArgs';
import { serverReport } from '../../../src/cli/format';
import { githubAnnotations } from '../../../src/cli/githubAnnotations';
import { junitXml } from '../../../src/cli/junit';
import { diffTools, toolDefinition, toolsInventory } from '../../../src/core/inventory';
import { status } from '../present/fixtures';

const defaults: CiOptions = {
  baselineFile: undefined,
  saveBaselineFile: undefined,
  junitFile: undefined,
  format: 'table',
  failOn: undefined,
  slowMs: undefined,
};

const tools = (description: string) => toolsInventory([toolDefinition({ name: 'lookup', description })!], 1e6);
const inventory = (description: string) => ({
  tools: tools(description),
  prompts: null,
  resources: null,
  complete: true,
  problems: [],
  listedAt: 0,
});

const up = serverReport(status('ok', { inventory: inventory('a') }));
const down = serverReport(
  status('gone', {
    state: 'down',
    lastError: { kind: 'exited', message: 'Process exited with code 3 while connecting', exitCode: 3, phase: 'connect' },
    cause: { id: 'exits-at-start', summary: 'The server exited with code 3 while starting', nextStep: 'Run it in a terminal' },
  }),
);
const suspect = serverReport(
  status('odd', { state: 'suspect', lastRttMs: 900, lastError: { kind: 'protocol-violation', message: 'non-empty pong' }, cause: null }),
);
const drifted = serverReport(status('rug', { inventory: inventory('b'), drift: diffTools(tools('a'), tools('b')) }));

describe('check CI flags', () => {
  it('parses --fail-on, --format, --junit, --baseline and rejects misuse', () => {
    const options = parseCliArgs([
      'check',
      '--fail-on',
      'down,drift',
      '--format',
      'github',
      '--junit',
      'r.xml',
      '--baseline',
      'b.json',
      '--save-baseline',
      'n.json',
    ]);
    assert.ok(options !== 'help');
    assert.deepEqual(options.ci.failOn, ['down', 'drift']);
    assert.equal(options.ci.format, 'github');
    assert.equal(options.ci.junitFile, 'r.xml');
    assert.equal(options.json, false);
    const json = parseCliArgs(['check', '--format', 'json']);
    assert.ok(json !== 'help' && json.json);
    assert.throws(() => parseCliArgs(['check', '--fail-on', 'down,late']), /--fail-on expects a comma list/);
    assert.throws(() => parseCliArgs(['check', '--fail-on', 'slow']), /--fail-on slow needs --slow-ms/);
    assert.throws(() => parseCliArgs(['check', '--format', 'xml']), /--format expects/);
    assert.throws(() => parseCliArgs(['watch', '--junit', 'x.xml']), /--junit applies to check only/);
    assert.throws(() => parseCliArgs(['check', '--json', '--format', 'github']), /exclude each other/);
  });

  it('without --fail-on keeps the old rule: every server up', () => {
    assert.equal(runFails(verdicts([up], defaults)), false);
    assert.equal(runFails(verdicts([up, suspect], defaults)), true);
    assert.equal(runFails(verdicts([], defaults)), true, 'no server found is a failure, as before');
    assert.equal(runFails(verdicts([up, drifted], defaults)), false, 'drift counts only against a baseline');
    assert.equal(runFails(verdicts([up, drifted], { ...defaults, baselineFile: 'b.json' })), true);
  });

  it('--fail-on picks the conditions', () => {
    assert.equal(runFails(verdicts([up, suspect], { ...defaults, failOn: ['down'] })), false);
    assert.equal(runFails(verdicts([up, suspect], { ...defaults, failOn: ['suspect'] })), true);
    assert.equal(runFails(verdicts([up, down], { ...defaults, failOn: ['drift'] })), false);
    assert.equal(runFails(verdicts([suspect], { ...defaults, failOn: ['slow'], slowMs: 1000 })), false);
    assert.equal(runFails(verdicts([suspect], { ...defaults, failOn: ['slow'], slowMs: 500 })), true);
    assert.equal(runFails(verdicts([drifted], { ...defaults, failOn: ['drift'] })), true);
  });

  it('gives the cause and next step as the failure text, in escaped JUnit XML', () => {
    const results = verdicts([up, down], defaults);
    assert.equal(results[1].text, 'The server exited with code 3 while starting. Next: Run it in a terminal');
    const xml = junitXml({ results, startedAt: new Date('2026-12-01T10:00:00.123Z'), durationMs: 1234, hostname: 'ci<&>', cwd: '/ws/app' });
    assert.match(
      xml,
      /<testsuite name="mcp-health check" tests="2" failures="1" errors="0" skipped="0" time="1.234" timestamp="2026-12-01T10:00:00" hostname="ci&lt;&amp;&gt;">/,
    );
    assert.match(xml, /<testcase name="gone" classname="mcp-health.\.vscode\/mcp.json" time="0.000" file=".vscode\/mcp.json" line="3">/);
    assert.match(
      xml,
      /<failure type="down" message="gone is down: The server exited with code 3 while starting. Next: Run it in a terminal">/,
    );
  });

  it('annotates the config file and line, escaping what workflow commands need escaped', () => {
    const lines = githubAnnotations(verdicts([up, down, suspect], { ...defaults, failOn: ['down'] }), '/ws/app').map(
      (annotation) => annotation.line,
    );
    assert.deepEqual(lines, [
      '::error file=.vscode/mcp.json,line=3,col=5,title=MCP server gone%3A down::The server exited with code 3 while starting. Next: Run it in a terminal',
      '::warning file=.vscode/mcp.json,line=3,col=5,title=MCP server odd%3A suspect::protocol-violation: non-empty pong',
    ]);
    const percent = serverReport(status('p', { state: 'down', lastError: { kind: 'timeout', message: '100%\nnext' }, cause: null }));
    assert.match(githubAnnotations(verdicts([percent], defaults), '/ws/app')[0]!.line, /::timeout: 100%25%0Anext$/);
  });
});
