// The informative line of real stderr (test/fixtures/stderr, captured from real servers), and the cause built on it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { classifyFailure } from '../../../src/core/causes';
import { stderrFinding } from '../../../src/core/stderrCause';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'stderr');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, `${name}.txt`), 'utf8');

interface Row {
  readonly fixture: string;
  readonly line: RegExp;
  readonly envVar?: string;
  readonly flag?: string;
  readonly file?: RegExp;
  /** The next step classifyFailure gives for server "demo" exiting at start with this stderr. */
  readonly nextStep: RegExp;
  readonly fix?: { key: 'env' | 'args'; name: RegExp };
}

const STRIPE_LINE =
  /^Error: Stripe API key not provided\. Please either pass it as an argument --api-key=\$KEY or set the STRIPE_SECRET_KEY environment variable\.$/;

const rows: Row[] = [
  {
    fixture: 'stripe-no-key',
    line: STRIPE_LINE,
    envVar: 'STRIPE_SECRET_KEY',
    flag: '--api-key',
    nextStep: /^Set STRIPE_SECRET_KEY in the "env" of "demo"/,
    fix: { key: 'env', name: /^STRIPE_SECRET_KEY$/ },
  },
  {
    fixture: 'stripe-no-key-color',
    line: STRIPE_LINE,
    envVar: 'STRIPE_SECRET_KEY',
    flag: '--api-key',
    nextStep: /^Set STRIPE_SECRET_KEY in the "env" of "demo"/,
    fix: { key: 'env', name: /^STRIPE_SECRET_KEY$/ },
  },
  {
    fixture: 'brave-search-no-key',
    line: /^Error: BRAVE_API_KEY environment variable is required$/,
    envVar: 'BRAVE_API_KEY',
    nextStep: /^Set BRAVE_API_KEY in the "env" of "demo"/,
    fix: { key: 'env', name: /^BRAVE_API_KEY$/ },
  },
  {
    fixture: 'postgres-no-url',
    line: /^Please provide a database URL as a command-line argument$/,
    nextStep: /Run the same command in a terminal/,
  },
  {
    fixture: 'node-unhandled-rejection',
    line: /^Error: GITHUB_TOKEN environment variable is not set$/,
    envVar: 'GITHUB_TOKEN',
    nextStep: /^Set GITHUB_TOKEN in the "env" of "demo"/,
    fix: { key: 'env', name: /^GITHUB_TOKEN$/ },
  },
  {
    fixture: 'node-unhandled-rejection-string',
    line: /^SLACK_BOT_TOKEN is required$/,
    envVar: 'SLACK_BOT_TOKEN',
    nextStep: /^Set SLACK_BOT_TOKEN in the "env"/,
    fix: { key: 'env', name: /^SLACK_BOT_TOKEN$/ },
  },
  {
    fixture: 'node-esm-module-not-found',
    line: /^Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module '.*\/server-core\.js' imported from/,
    file: /\/server-core\.js$/,
    nextStep: /^Check that .*\/server-core\.js exists, or fix the path in the "args" or "cwd" of "demo"/,
    fix: { key: 'args', name: /server-core\.js$/ },
  },
  {
    fixture: 'node-cjs-module-not-found',
    line: /^Error: Cannot find module '.*\/missing-server\.js'$/,
    file: /\/missing-server\.js$/,
    nextStep: /^Check that .*missing-server\.js exists/,
    fix: { key: 'args', name: /missing-server\.js$/ },
  },
  {
    fixture: 'node-missing-file',
    line: /^Error: ENOENT: no such file or directory, open '\.\/server-config\.json'$/,
    file: /^\.\/server-config\.json$/,
    nextStep: /^Check that \.\/server-config\.json exists/,
    fix: { key: 'args', name: /^\.\/server-config\.json$/ },
  },
  {
    fixture: 'python-keyerror-env',
    line: /^KeyError: 'OPENAI_API_KEY'$/,
    envVar: 'OPENAI_API_KEY',
    nextStep: /^Set OPENAI_API_KEY in the "env" of "demo"/,
    fix: { key: 'env', name: /^OPENAI_API_KEY$/ },
  },
  {
    fixture: 'python-module-not-found',
    line: /^ModuleNotFoundError: No module named 'mcp'$/,
    nextStep: /Run the same command in a terminal/,
  },
  {
    fixture: 'python-argparse-required',
    line: /^weather-server: error: the following arguments are required: --api-key$/,
    flag: '--api-key',
    nextStep: /^Add --api-key to the "args" of "demo"/,
    fix: { key: 'args', name: /^--api-key$/ },
  },
];

describe('stderrFinding on real stderr', () => {
  for (const row of rows) {
    it(row.fixture, () => {
      const text = fixture(row.fixture);
      const finding = stderrFinding(text);
      assert.ok(finding, 'a line is found');
      assert.match(finding.line, row.line);
      assert.doesNotMatch(finding.line, /\x1b|Node\.js v\d/, 'no colour codes, no runtime trailer');
      assert.equal(finding.envVar, row.envVar);
      assert.equal(finding.flag, row.flag);
      if (row.file) assert.match(finding.file ?? '', row.file);
      else assert.equal(finding.file, undefined);
    });
  }
});

describe('the cause of a server that exits at start, from real stderr', () => {
  for (const row of rows) {
    it(row.fixture, () => {
      const stderrTail = fixture(row.fixture);
      const cause = classifyFailure({
        state: 'down',
        transport: 'stdio',
        command: 'node',
        name: 'demo',
        error: { kind: 'exited', message: 'Process exited with code 1 while connecting', exitCode: 1, stderrTail, phase: 'connect' },
      });
      assert.equal(cause?.id, 'exits-at-start');
      assert.ok(cause.summary.startsWith('The server exited with code 1 while starting: '), cause.summary);
      assert.match(cause.summary.slice('The server exited with code 1 while starting: '.length), row.line);
      assert.match(cause.nextStep, row.nextStep);
      if (row.fix) {
        assert.equal(cause.fix?.key, row.fix.key);
        assert.match(cause.fix?.name ?? '', row.fix.name);
      } else {
        assert.equal(cause.fix, undefined);
      }
    });
  }

  it('a crash after running names the variable too', () => {
    const cause = classifyFailure({
      state: 'down',
      transport: 'stdio',
      name: 'stripe',
      error: { kind: 'exited', message: 'Process exited with code 1', exitCode: 1, stderrTail: fixture('stripe-no-key'), phase: 'session' },
    });
    assert.equal(cause?.id, 'crashed');
    assert.match(cause.summary, /^The server exited with code 1: Error: Stripe API key not provided/);
    assert.match(cause.nextStep, /^Set STRIPE_SECRET_KEY in the "env" of "stripe"/);
  });
});

describe('stderrFinding on text that names nothing', () => {
  it('returns null for empty or blank stderr', () => {
    assert.equal(stderrFinding(''), null);
    assert.equal(stderrFinding(undefined), null);
    assert.equal(stderrFinding('\n  \n'), null);
  });

  it('keeps the last plain line when nothing is recognised, and cuts a long one', () => {
    assert.deepEqual(stderrFinding('booting\nlistening on stdio\n'), { line: 'listening on stdio' });
    assert.equal(stderrFinding(`${'x'.repeat(300)}\n`)?.line.length, 161);
  });

  it('a progress bar redrawn with carriage returns keeps its last state', () => {
    assert.equal(stderrFinding('npm http fetch 10%\rnpm http fetch 100%\n')?.line, 'npm http fetch 100%');
  });

  it('an error code is not an environment variable', () => {
    assert.equal(stderrFinding('Error [ERR_REQUIRE_ESM]: require() of ES Module not supported\n    at x (y.js:1:1)\n')?.envVar, undefined);
  });
});
