// The local channel's framing on top of lineSplitter: JSON objects per line, garbage skipped, the line bound enforced
// whether a long line arrives whole or in pieces, and nothing delivered once the stream has overflowed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encode, JsonLineFramer, type ChannelMessage } from '../../../src/mcp/channelFraming';

function framer(maxLineBytes = 64) {
  const messages: ChannelMessage[] = [];
  const garbage: string[] = [];
  let overflows = 0;
  const framing = new JsonLineFramer(
    { message: (m) => messages.push(m), garbage: (g) => garbage.push(g), overflow: () => overflows++ },
    maxLineBytes,
  );
  return { framing, messages, garbage, overflows: () => overflows };
}

void describe('channel framing', () => {
  void it('delivers objects split across chunks and several in one chunk, and skips blank lines', () => {
    const t = framer();
    t.framing.push(Buffer.from('{"a":1}\n\r\n{"b"'));
    t.framing.push(Buffer.from(':2}\n{"c":3}\n'));
    assert.deepEqual(t.messages, [{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  void it('reports a line that is not a JSON object and goes on', () => {
    const t = framer();
    t.framing.push(Buffer.from('not json\n[1]\n{"ok":true}\n'));
    assert.deepEqual(t.garbage, ['not json', '[1]']);
    assert.deepEqual(t.messages, [{ ok: true }]);
  });

  void it('ends the stream on a line over the bound, whole in one chunk or in pieces, and delivers nothing after', () => {
    const whole = framer(16);
    whole.framing.push(Buffer.from(`${JSON.stringify({ long: 'x'.repeat(40) })}\n{"after":1}\n`));
    assert.equal(whole.overflows(), 1);
    assert.deepEqual(whole.messages, []);
    const pieces = framer(16);
    pieces.framing.push(Buffer.from('{"long":"'));
    pieces.framing.push(Buffer.from('x'.repeat(20)));
    pieces.framing.push(Buffer.from('"}\n{"after":1}\n'));
    assert.equal(pieces.overflows(), 1);
    assert.deepEqual(pieces.messages, []);
  });

  void it('takes a line exactly at the bound', () => {
    const line = JSON.stringify({ k: 'x'.repeat(8) });
    const t = framer(line.length);
    t.framing.push(Buffer.from(`${line}\n`));
    assert.deepEqual(t.messages, [{ k: 'xxxxxxxx' }]);
    assert.equal(t.overflows(), 0);
  });

  void it('encodes one message as one line', () => {
    assert.equal(encode({ text: 'a\nb' }), '{"text":"a\\nb"}\n');
  });
});
