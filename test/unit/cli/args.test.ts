import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCliArgs, UsageError, DEFAULT_TIMEOUT_MS } from '../../../src/cli/args';

describe('parseCliArgs', () => {
  it('reads repeatable selections and flags', () => {
    const options = parseCliArgs(['check', '--workspace', 'a', '--workspace', 'b', '--config', 'x.json', '--no-user', '--server', 's1', '--server', 's2', '--timeout-ms', '250', '--connect-timeout-ms', '9000', '--json']);
    assert.notEqual(options, 'help');
    if (options === 'help') return;
    assert.equal(options.command, 'check');
    assert.deepEqual(options.workspaces, ['a', 'b']);
    assert.deepEqual(options.configFiles, ['x.json']);
    assert.equal(options.includeUser, false);
    assert.deepEqual(options.serverNames, ['s1', 's2']);
    assert.equal(options.timeoutMs, 250);
    assert.equal(options.connectTimeoutMs, 9000);
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

  it('answers help', () => {
    assert.equal(parseCliArgs(['--help']), 'help');
    assert.equal(parseCliArgs(['help']), 'help');
  });
});
