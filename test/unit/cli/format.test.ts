// The CLI's readable table and JSON report: why a server failed, and nothing a terminal would obey.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ServerState } from '../../../src/core/model';
import { formatServerTable, serverReport, stateLabel, STDERR_TAIL_CHARS, summaryLine } from '../../../src/cli/format';
import { terminalSafeJson } from '../../../src/cli/terminalText';
import { status } from '../present/fixtures';

const plain = { color: false };
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

void describe('serverReport stderrTail', () => {
  const crashed = status('crashed', {
    state: 'down',
    lastError: { kind: 'exited', message: 'Process exited with code 3', exitCode: 3 },
    // No cause known (as for a report from elsewhere the monitor did not classify): the row shows the error itself.
    cause: null,
    stderrTail: `${'x'.repeat(STDERR_TAIL_CHARS)}\nloading config\nfatal: cannot open db\n`,
  });

  void it('carries the tail of a failed stdio server, bounded', () => {
    const report = serverReport(crashed);
    assert.equal(report.stderrTail?.length, STDERR_TAIL_CHARS);
    assert.ok(report.stderrTail?.endsWith('loading config\nfatal: cannot open db\n'));
  });

  void it('is null for a server that is up, and for a remote server', () => {
    assert.equal(serverReport(status('fine', { stderrTail: 'chatty\n' })).stderrTail, null);
    assert.equal(
      serverReport(
        status('remote', {
          state: 'down',
          config: { transport: 'http', url: 'https://h.example.test/mcp' },
          lastError: { kind: 'unreachable', message: 'refused' },
          stderrTail: 'x\n',
        }),
      ).stderrTail,
      null,
    );
  });

  void it('puts the last two stderr lines under the failed row', () => {
    const lines = formatServerTable([serverReport(crashed)], plain, '/work/ws', true).split('\n');
    assert.match(lines[1], /^crashed\s+down\b.*exited: Process exited with code 3$/);
    assert.deepEqual(lines.slice(2), ['    stderr: loading config', '    stderr: fatal: cannot open db']);
  });

  const captured = (name: string) => readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'stderr', `${name}.txt`), 'utf8');
  const stderrUnder = (tail: string) =>
    formatServerTable(
      [
        serverReport(
          status('real', {
            state: 'down',
            lastError: { kind: 'exited', message: 'Process exited with code 1', exitCode: 1 },
            stderrTail: tail,
          }),
        ),
      ],
      plain,
      '/work/ws',
      true,
    )
      .split('\n')
      .slice(2);

  void it("puts a Node crash's thrown error under the row, not only its stack and version trailer", () => {
    assert.deepEqual(stderrUnder(captured('stripe-no-key')), [
      '    stderr: Error: Stripe API key not provided. Please either pass it as an argument --api-key=$KEY or set the STRIPE_SECRET_KEY environment variable.',
      '    stderr: Node.js v20.20.2',
    ]);
  });

  void it('keeps the last two lines when the informative one is the last (a Python traceback)', () => {
    assert.deepEqual(stderrUnder(captured('python-keyerror-env')), [
      '    stderr:  File "<frozen os>", line 679, in __getitem__',
      "    stderr: KeyError: 'OPENAI_API_KEY'",
    ]);
  });

  void it('picks the thrown error of a coloured crash, without its colour codes', () => {
    const colored = stderrUnder(captured('stripe-no-key-color'));
    assert.match(colored[0], /^ {4}stderr: Error: Stripe API key not provided\./);
    assert.doesNotMatch(colored.join('\n'), CONTROL);
  });
});

void describe('terminal safety', () => {
  const hostile = status('evil\x1b]0;title\x07', {
    serverInfo: { name: 'srv\x1b[2J', version: '1\x9b31m' },
  });

  void it('the table carries no control character from a name, serverInfo or error', () => {
    const down = status('down\x1b[H', {
      state: 'down',
      lastError: { kind: 'exited', message: 'boom\x1b[2J\x07' },
      stderrTail: 'err\x1b]0;t\x07\n',
    });
    const table = formatServerTable([serverReport(hostile), serverReport(down)], plain, '/work/ws', true);
    assert.doesNotMatch(table, CONTROL, JSON.stringify(table));
    assert.match(table, /^evil\s+up\b.*srv 1$/m);
    assert.doesNotMatch(formatServerTable([serverReport(hostile)], plain, '/work/ws', false), CONTROL);
  });

  void it('JSON escapes C1 and DEL as well as C0, and parses back to the same value', () => {
    const value = { text: 'a\x9b31m\x7f\x1b[2J' };
    const json = terminalSafeJson(value);
    assert.doesNotMatch(json, CONTROL);
    assert.deepEqual(JSON.parse(json), value);
  });

  void it('an interrupted summary says so', () => {
    assert.equal(summaryLine([serverReport(hostile)], plain, true), 'interrupted: partial result, 1/1 healthy so far');
  });
});

void describe('stateLabel colours', () => {
  const color = { color: true };
  const ansi = { green: '\x1b[32m', cyan: '\x1b[36m', yellow: '\x1b[33m', red: '\x1b[31m', dim: '\x1b[2m' };
  // The terminal colour of each state follows the health every view uses, except a lazy server nobody asked for yet.
  const expected: Record<ServerState, keyof typeof ansi> = {
    up: 'green',
    starting: 'cyan',
    connecting: 'cyan',
    verifying: 'cyan',
    idle: 'dim',
    suspect: 'yellow',
    'auth-required': 'yellow',
    'needs-input': 'yellow',
    down: 'red',
    'gave-up': 'red',
    'config-error': 'red',
    disabled: 'dim',
    untrusted: 'dim',
    'needs-consent': 'dim',
    'sandbox-unavailable': 'yellow',
  };

  void it('paints every state, and the raw state name stays the label', () => {
    for (const [state, code] of Object.entries(expected) as [ServerState, keyof typeof ansi][]) {
      assert.equal(stateLabel({ state, flapping: false }, color), `${ansi[code]}${state}\x1b[0m`, state);
    }
  });

  void it('paints a flapping server that is up as a warning, and names it flapping', () => {
    assert.equal(stateLabel({ state: 'up', flapping: true }, color), `${ansi.yellow}up (flapping)\x1b[0m`);
    assert.equal(stateLabel({ state: 'down', flapping: true }, color), `${ansi.red}down (flapping)\x1b[0m`);
    assert.equal(stateLabel({ state: 'up', flapping: true }, plain), 'up (flapping)');
  });

  void it('colours the summary by the worst problem', () => {
    const report = (state: ServerState) =>
      serverReport(status(state, { state, ...(state === 'down' ? { lastError: { kind: 'timeout', message: 't' } } : {}) }));
    assert.equal(summaryLine([report('up')], color), `${ansi.green}1/1 healthy\x1b[0m`);
    assert.equal(summaryLine([report('up'), report('suspect')], color), `${ansi.yellow}1/2 healthy\x1b[0m`);
    assert.equal(summaryLine([report('suspect'), report('down')], color), `${ansi.red}0/2 healthy\x1b[0m`);
    assert.equal(summaryLine([report('connecting')], color), `${ansi.green}0/1 healthy\x1b[0m`);
  });
});
