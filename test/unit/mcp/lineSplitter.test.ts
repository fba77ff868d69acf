// The guard's framing on its own: each line forwarded byte for byte, newline included, and memory bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineSplitter } from '../../../src/mcp/lineSplitter';

function splitter(maxLineBytes = 64): { splitter: LineSplitter; lines: string[]; overflows: number[] } {
  const lines: string[] = [];
  const overflows: number[] = [];
  return {
    splitter: new LineSplitter(
      { line: (raw) => lines.push(raw.toString('utf8')), overflow: (bytes) => overflows.push(bytes) },
      maxLineBytes,
    ),
    lines,
    overflows,
  };
}

void describe('LineSplitter', () => {
  void it('keeps each line exactly as received, CR and newline included, whatever the chunking', () => {
    const { splitter: s, lines } = splitter();
    const text = '{"a":1}\r\n\n  {"b": 2}\nnot json\n';
    for (const byte of Buffer.from(text)) s.push(Buffer.from([byte]));
    assert.deepEqual(lines, ['{"a":1}\r\n', '\n', '  {"b": 2}\n', 'not json\n']);
    assert.equal(lines.join(''), text);
  });

  void it('holds an unfinished line until its newline and says how much it holds', () => {
    const { splitter: s, lines } = splitter();
    s.push(Buffer.from('one\ntw'));
    assert.deepEqual(lines, ['one\n']);
    assert.equal(s.bufferedBytes, 2);
    s.push(Buffer.from('o\n'));
    assert.deepEqual(lines, ['one\n', 'two\n']);
    assert.equal(s.bufferedBytes, 0);
  });

  void it('overflows once when more than the bound waits for a newline, then forwards nothing', () => {
    const { splitter: s, lines, overflows } = splitter(8);
    s.push(Buffer.from('ok\n12345'));
    s.push(Buffer.from('6789'));
    assert.deepEqual(overflows, [9]);
    s.push(Buffer.from('\nlater\n'));
    assert.deepEqual(lines, ['ok\n']);
    assert.deepEqual(overflows, [9]);
  });
});
