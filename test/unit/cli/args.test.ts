import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCliArgs, UsageError, DEFAULT_TIMEOUT_MS, MAX_TIMER_MS, USAGE } from '../../../src/cli/args';

describe('parseCliArgs', () => {
  it('reads repeatable selections and flags', () => {
    const options = parseCliArgs([
      'check',
      '--workspace',
      'a',
      '--workspace',
      'b',
      '--config',
      'x.json',
      '--no-user',
      '--server',
      's1',
      '--server',
      's2',
      '--timeout-ms',
      '250',
      '--connect-timeout-ms',
      '9000',
      '--startup-timeout-ms',
      '45000',
      '--json',
    ]);
    assert.notEqual(options, 'help');
    if (options === 'help') return;
    assert.equal(options.command, 'check');
    assert.deepEqual(options.workspaces, ['a', 'b']);
    assert.deepEqual(options.configFiles, ['x.json']);
    assert.equal(options.includeUser, false);
    assert.deepEqual(options.serverNames, ['s1', 's2']);
    assert.equal(options.timeoutMs, 250);
    assert.equal(options.connectTimeoutMs, 9000);
    assert.equal(options.startupTimeoutMs, 45000);
    assert.equal(options.json, true);
  });

  it('defaults the timeout and includes user configs', () => {
    const options = parseCliArgs(['list']);
    assert.ok(options !== 'help');
    assert.equal(options.timeoutMs, DEFAULT_TIMEOUT_MS);
    assert.equal(options.includeUser, true);
    assert.deepEqual(options.workspaces, []);
  });

  it('enforces the minimum interval and timeout', () => {
    assert.throws(() => parseCliArgs(['watch', '--interval-ms', '999']), UsageError);
    assert.throws(() => parseCliArgs(['watch', '--timeout-ms', '99']), UsageError);
    const options = parseCliArgs(['watch', '--interval-ms', '1000', '--timeout-ms', '100', '--duration-ms', '5000']);
    assert.ok(options !== 'help');
    assert.equal(options.intervalMs, 1000);
    assert.equal(options.durationMs, 5000);
  });

  it('rejects unknown commands, unknown flags, non-numbers and misplaced flags', () => {
    assert.throws(() => parseCliArgs([]), /missing command/);
    assert.throws(() => parseCliArgs(['ping']), /unknown command "ping"/);
    assert.throws(() => parseCliArgs(['check', '--bogus']), UsageError);
    assert.throws(() => parseCliArgs(['check', '--timeout-ms', '5s']), /whole number/);
    assert.throws(() => parseCliArgs(['check', '--interval-ms', '2000']), /watch only/);
    assert.throws(() => parseCliArgs(['list', '--timeout-ms', '2000']), /do not apply to list/);
    assert.throws(() => parseCliArgs(['check', 'extra']), /unexpected argument/);
  });

  it("bounds every numeric flag from above, below Node's timer maximum", () => {
    const cases: readonly [readonly string[], RegExp][] = [
      [['check', '--timeout-ms', '3000000000'], /--timeout-ms must be at most 600000 \(got 3000000000\)/],
      [['check', '--timeout-ms', '600001'], /at most 600000/],
      [['check', '--connect-timeout-ms', '2147483648'], /--connect-timeout-ms must be at most 600000/],
      [['watch', '--interval-ms', '86400001'], /--interval-ms must be at most 86400000/],
      [['watch', '--duration-ms', '2147483648'], /--duration-ms must be at most 2147483647/],
      [['watch', '--duration-ms', '9'.repeat(40)], /--duration-ms must be at most 2147483647 \(got 9{40}\)/],
    ];
    for (const [argv, message] of cases)
      assert.throws(
        () => parseCliArgs(argv),
        (error: unknown) => error instanceof UsageError && message.test(error.message),
        argv.join(' '),
      );
    const options = parseCliArgs([
      'watch',
      '--timeout-ms',
      '600000',
      '--connect-timeout-ms',
      '600000',
      '--interval-ms',
      '86400000',
      '--duration-ms',
      String(2 ** 31 - 1),
    ]);
    assert.ok(options !== 'help');
    assert.equal(options.durationMs, MAX_TIMER_MS);
    assert.equal(options.intervalMs, 86_400_000);
  });

  it('states the bounds in the usage text', () => {
    assert.match(USAGE, /100 to 600000/);
    assert.match(USAGE, /1000 to 86400000/);
    assert.match(USAGE, /1 to 2147483647/);
    assert.match(USAGE, /130 interrupted/);
  });

  it('answers help', () => {
    assert.equal(parseCliArgs(['--help']), 'help');
    assert.equal(parseCliArgs(['help']), 'help');
  });
});
