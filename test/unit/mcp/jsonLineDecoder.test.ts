// The stdout framing on its own: lines split over chunks, CRLF, stray output, blank lines and the size bound.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonLineDecoder } from '../../../src/mcp/jsonLineDecoder';

interface Seen {
  messages: unknown[];
  garbage: string[];
  overflows: number[];
}

function decoder(maxLineBytes = 1024): { decoder: JsonLineDecoder; seen: Seen } {
  const seen: Seen = { messages: [], garbage: [], overflows: [] };
  const sink = {
    message: (message: unknown) => seen.messages.push(message),
    garbage: (line: string) => seen.garbage.push(line),
    overflow: (bytes: number) => seen.overflows.push(bytes),
  };
  return { decoder: new JsonLineDecoder(sink, maxLineBytes), seen };
}

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const result = { jsonrpc: '2.0', id: 1, result: {} };

void describe('JsonLineDecoder', () => {
  void it('joins a line split across chunks, even inside a multi-byte character', () => {
    const { decoder: d, seen } = decoder();
    const bytes = Buffer.from(`${JSON.stringify({ ...result, result: { text: 'héllo ✓' } })}\n`);
    const cut = bytes.indexOf(Buffer.from('✓')) + 1;
    d.push(bytes.subarray(0, 5));
    d.push(bytes.subarray(5, cut));
    assert.deepEqual(seen.messages, []);
    d.push(bytes.subarray(cut));
    assert.deepEqual(seen.messages, [{ ...result, result: { text: 'héllo ✓' } }]);
  });

  void it('delivers every line of a chunk that holds several, and keeps the unfinished tail', () => {
    const { decoder: d, seen } = decoder();
    d.push(Buffer.from(`${JSON.stringify(ping)}\n${JSON.stringify(result)}\n{"jsonrpc":"2.0",`));
    assert.deepEqual(seen.messages, [ping, result]);
    d.push(Buffer.from('"method":"notifications/x"}\n'));
    assert.deepEqual(seen.messages, [ping, result, { jsonrpc: '2.0', method: 'notifications/x' }]);
  });

  void it('accepts CRLF line ends, and reports a CRLF garbage line without its CR', () => {
    const { decoder: d, seen } = decoder();
    d.push(Buffer.from(`${JSON.stringify(ping)}\r\nbanner\r\n${JSON.stringify(result)}\r`));
    d.push(Buffer.from('\n'));
    assert.deepEqual(seen.messages, [ping, result]);
    assert.deepEqual(seen.garbage, ['banner']);
  });

  void it('drops garbage lines, counts them and goes on decoding', () => {
    const { decoder: d, seen } = decoder();
    d.push(Buffer.from(`server starting on stdout\n{not json\n{"hello":"world"}\n[]\n[1,2]\n${JSON.stringify(ping)}\n`));
    assert.deepEqual(seen.garbage, ['server starting on stdout', '{not json', '{"hello":"world"}', '[]', '[1,2]']);
    assert.equal(d.garbageLines, 5);
    assert.deepEqual(seen.messages, [ping]);
  });

  void it('shortens a long garbage line in what it reports', () => {
    const { decoder: d, seen } = decoder();
    d.push(Buffer.from(`${'x'.repeat(500)}\n`));
    assert.equal(seen.garbage[0], `${'x'.repeat(200)}…`);
  });

  void it('delivers each member of a batch', () => {
    const { decoder: d, seen } = decoder();
    d.push(Buffer.from(`${JSON.stringify([ping, result])}\n`));
    assert.deepEqual(seen.messages, [ping, result]);
  });

  void it('passes over empty and blank lines without calling them garbage', () => {
    const { decoder: d, seen } = decoder();
    d.push(Buffer.from(`\n\n   \n\t\r\n${JSON.stringify(ping)}\n\n`));
    assert.deepEqual(seen.messages, [ping]);
    assert.deepEqual(seen.garbage, []);
    assert.equal(d.garbageLines, 0);
  });

  void it('a line over the bound without a newline overflows once, and nothing more is decoded', () => {
    const { decoder: d, seen } = decoder(64);
    d.push(Buffer.from(`${JSON.stringify(ping)}\n`));
    d.push(Buffer.from('{"jsonrpc":"2.0","id":2,"result":{"text":"'));
    d.push(Buffer.from('y'.repeat(40)));
    assert.equal(seen.overflows.length, 1);
    assert.ok(seen.overflows[0]! > 64, String(seen.overflows[0]));
    d.push(Buffer.from(`"}}\n${JSON.stringify(result)}\n`));
    assert.deepEqual(seen.messages, [ping]);
    assert.equal(seen.overflows.length, 1);
  });

  void it('a complete line longer than the bound inside one chunk is still delivered: the bound is on what waits for a newline', () => {
    const { decoder: d, seen } = decoder(16);
    d.push(Buffer.from(`${JSON.stringify(ping)}\n`));
    assert.deepEqual(seen.messages, [ping]);
    assert.deepEqual(seen.overflows, []);
  });
});
