// Server-supplied text with terminal control sequences, through every Markdown and text view of the extension.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stripControlSequences } from '../../../src/core/controlText';
import { detailRows, detailsText } from '../../../src/present/details';
import { codeBlock, escapeMarkdown } from '../../../src/present/markdown';
import { statusReportMarkdown } from '../../../src/present/report';
import { status } from './fixtures';

/** Clear screen, home, an OSC window title ended by BEL, a C1 CSI colour, a reset, a backspace and a bell. */
const HOSTILE = '\x1b[2J\x1b[H\x1b]0;pwned-title\x07\x9b31mred\x1b[0m\x08\x07';
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

void describe('stripControlSequences', () => {
  const table: readonly [string, string][] = [
    ['\x1b[2Jclear', 'clear'],
    ['\x1b]0;title\x07after', 'after'],
    ['\x1b]8;;https://example.invalid\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['\x9b31mred', 'red'],
    ['\x1bPdcs\x1b\\x', 'x'],
    ['bell\x07 bs\x08 nul\x00', 'bell\uFFFD bs\uFFFD nul\uFFFD'],
    ['tab\tand\nnewline\r\nkept', 'tab\tand\nnewline\nkept'],
    ['del\x7f c1\x85', 'del\uFFFD c1\uFFFD'],
    ['plain text · ünïcödé', 'plain text · ünïcödé'],
  ];
  for (const [input, expected] of table) {
    void it(JSON.stringify(input), () => assert.equal(stripControlSequences(input), expected));
  }
});

void describe('control sequences in the extension views', () => {
  const hostile = status('evil', {
    state: 'down',
    serverInfo: { name: `name${HOSTILE}`, version: `1${HOSTILE}`, title: `title${HOSTILE}` },
    lastError: { kind: 'exited', message: `boom${HOSTILE}`, exitCode: 3 },
    stderrTail: `line one${HOSTILE}\n\`\`\`\n[run](command:workbench.action.terminal.sendSequence)\n`,
  });

  void it('details rows and Copy Details carry none', () => {
    for (const row of detailRows(hostile)) {
      assert.doesNotMatch(row.value, CONTROL, row.key);
      assert.doesNotMatch(row.full ?? '', CONTROL, row.key);
      assert.doesNotMatch(row.value, /pwned-title/, row.key);
    }
    assert.doesNotMatch(detailsText(hostile), CONTROL);
  });

  void it('the status report carries none, and no link or HTML', () => {
    const report = statusReportMarkdown(
      [status('x<img src=y>[a](command:z)`c`', { lastError: { kind: 'exited', message: `m${HOSTILE}` }, state: 'down' })],
      Date.UTC(2024, 0, 2),
      (file) => file,
    );
    assert.doesNotMatch(report, CONTROL);
    assert.ok(report.includes('x\\<img src=y\\>\\[a\\](command:z)\\`c\\`'), report);
  });

  void it('escaped Markdown (tooltips) carries none', () => {
    assert.equal(escapeMarkdown(`a${HOSTILE}b`), 'ared\uFFFD\uFFFDb');
  });

  void it('a code block cannot be closed early by the text inside it', () => {
    const block = codeBlock('x\n```\n[run](command:evil)\n````');
    const fence = block.trim().split('\n')[0].replace('text', '');
    assert.equal(fence, '`````');
    assert.ok(block.trim().endsWith('\n`````'));
    assert.equal(block.split('\n').filter((line) => line.startsWith('`````')).length, 2);
  });
});
