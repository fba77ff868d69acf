// The CLI's one writer: what it lets through to a terminal or a CI log.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ANSI, cliJson, createCliOutput, GithubAnnotation, printable } from '../../../src/cli/output';

void describe('CLI output writer', () => {
  void it('keeps the CLI palette, removes every other sequence, and shows bidi overrides as U+FFFD', () => {
    assert.equal(
      printable(`${ANSI.red}down${ANSI.reset} \x1b]0;title\x07x\x9b2Jy\x1b[5;1H\u202etxt`),
      `${ANSI.red}down${ANSI.reset} xy\uFFFDtxt`,
    );
  });

  void it('never starts a line with a workflow command, with or without leading space or colour; ##[ nowhere', () => {
    for (const line of printable(
      `::warning file=a::x\n  ::stop-commands::tok\n${ANSI.bold}::add-mask::v${ANSI.reset}\nname ##[error]x`,
    ).split('\n')) {
      assert.doesNotMatch(line.replace(/\x1b\[\d+m/g, '').trimStart(), /^::/, line);
      assert.doesNotMatch(line, /##\[/);
    }
    assert.equal(printable('http://[::1]:8080 a::b'), 'http://[::1]:8080 a::b');
  });

  void it('JSON: C1, DEL, bidi and line separators escaped; values parse back identical', () => {
    const value = { name: `a\x9b31m\x7f\u202e\u2028##[x` };
    const text = cliJson(value);
    assert.doesNotMatch(text, /[\x7f-\x9f\u202e\u2028]|##\[/);
    assert.deepEqual(JSON.parse(text), value);
  });

  void it('annotations are the one :: line, with filtered, escaped properties and message', () => {
    const printed: string[] = [];
    const output = createCliOutput({ stdout: (text) => printed.push(text), stderr: (text) => printed.push(text) });
    output.out(
      new GithubAnnotation('error', { file: 'a,b.json', line: 3, title: 'MCP server ::warning x\x1b[2J: down' }, 'boom\n::error::x'),
    );
    output.out('::error::forged');
    assert.deepEqual(printed, [
      '::error file=a%2Cb.json,line=3,title=MCP server %3A%3Awarning x%3A down::boom%0A::error::x\n',
      ':\u200b:error::forged\n',
    ]);
  });
});
