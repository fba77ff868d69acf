// ByteWriter against the strings it replaces: any sequence of chunks, newlines and values, from a buffer too small for
// them (it grows), gives the bytes of the same text built as a string and UTF-8 encoded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ByteWriter } from '../../../src/metrics/byteWriter';
import { valueText } from '../../../src/metrics/sampledText';

const number = fc.oneof(
  fc.nat(),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  fc.double(),
  fc.constantFrom(
    0,
    -0,
    9,
    10,
    99,
    100,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 2,
    1e21,
    5e-324,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ),
);
const step = fc.oneof(
  fc.record({ chunk: fc.string({ unit: fc.constantFrom('a', 'é', '😀', '"', '\n'), maxLength: 40 }) }),
  fc.record({ value: number }),
  fc.constant('newline' as const),
);

void describe('ByteWriter', () => {
  void it('writes what string concatenation and UTF-8 encoding would, growing as needed', () => {
    fc.assert(
      fc.property(fc.nat({ max: 64 }), fc.array(step, { maxLength: 200, size: 'max' }), (sizeHint, steps) => {
        const out = new ByteWriter(sizeHint);
        let expected = '';
        for (const s of steps) {
          if (s === 'newline') {
            out.newline();
            expected += '\n';
          } else if ('chunk' in s) {
            out.bytes(Buffer.from(s.chunk, 'utf8'));
            expected += s.chunk;
          } else {
            out.value(s.value);
            expected += valueText(s.value);
          }
        }
        assert.deepEqual(out.done(), Buffer.from(expected, 'utf8'));
      }),
      { numRuns: 500 },
    );
  });
});
