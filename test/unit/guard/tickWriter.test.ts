import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { TickWriter } from '../../../src/guard/tickWriter';

/**
 * A real Writable that records each underlying write (one entry per syscall a pipe would make). `slow`: each write
 * completes on a later turn, as on a pipe whose reader lags, so the stream holds what comes meanwhile.
 */
function recorder(highWaterMark = 16 * 1024, slow = false) {
  const writes: string[][] = [];
  const complete = (done: () => void) => (slow ? setImmediate(done) : done());
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString('utf8')]);
      complete(done);
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => (chunk as Buffer).toString('utf8')));
      complete(done);
    },
  });
  return { stream, writes };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

void describe('TickWriter', () => {
  void it('sends the lines written in one tick as one write, in order, and the next tick separately', async () => {
    const { stream, writes } = recorder();
    const writer = new TickWriter(stream);
    for (const text of ['a\n', 'b\n', 'c\n']) assert.equal(writer.write(Buffer.from(text)), true);
    assert.deepEqual(writes, []);
    await tick();
    writer.write(Buffer.from('d\n'));
    await tick();
    assert.deepEqual(writes, [['a\n', 'b\n', 'c\n'], ['d\n']]);
  });

  void it('writes a tick of one run straight to the stream, without corking it', async () => {
    const { stream, writes } = recorder();
    let corks = 0;
    const cork = stream.cork.bind(stream);
    stream.cork = () => {
      corks++;
      cork();
    };
    const writer = new TickWriter(stream);
    const chunk = Buffer.from('{"id":1}\n{"id":2}\n');
    writer.write(chunk.subarray(0, 9));
    writer.write(chunk.subarray(9));
    await tick();
    writer.write(Buffer.from('{"id":3}\n'));
    await tick();
    assert.deepEqual(writes, [['{"id":1}\n{"id":2}\n'], ['{"id":3}\n']]);
    assert.equal(corks, 0);
  });

  void it('reports backpressure like the stream, and the stream drains', async () => {
    const { stream, writes } = recorder(4);
    const writer = new TickWriter(stream);
    assert.equal(writer.write(Buffer.from('12\n')), true);
    assert.equal(writer.write(Buffer.from('34\n')), false);
    await new Promise<void>((resolve) => stream.once('drain', resolve));
    assert.deepEqual(writes, [['12\n', '34\n']]);
  });

  void it('merges lines that lie one after the other in the memory they were read into, and only those', async () => {
    const chunk = Buffer.from('a\nbb\nccc\nd\ne\n');
    const { stream, writes } = recorder();
    const writer = new TickWriter(stream);
    writer.write(chunk.subarray(0, 2));
    writer.write(chunk.subarray(2, 5));
    writer.write(Buffer.from('rewritten\n'));
    writer.write(chunk.subarray(5, 9));
    // Not adjacent to the run before it ("d" is left out): a write of its own.
    writer.write(chunk.subarray(11, 13));
    await tick();
    assert.deepEqual(writes, [['a\nbb\n', 'rewritten\n', 'ccc\n', 'e\n']]);
  });

  void it('reports backpressure from merged lines as soon as the stream is over its mark, and drains', async () => {
    const chunk = Buffer.from('12\n34\n56\n');
    const { stream, writes } = recorder(5, true);
    const writer = new TickWriter(stream);
    assert.equal(writer.write(chunk.subarray(0, 3)), true);
    assert.equal(writer.write(chunk.subarray(3, 6)), false);
    await new Promise<void>((resolve) => stream.once('drain', resolve));
    assert.equal(writer.write(chunk.subarray(6, 9)), true);
    await tick();
    assert.deepEqual(writes.flat().join(''), '12\n34\n56\n');
  });

  void it('flush() hands what it holds to the stream before an end()', async () => {
    const { stream, writes } = recorder();
    const writer = new TickWriter(stream);
    writer.write(Buffer.from('last\n'));
    writer.flush();
    await new Promise<void>((resolve) => stream.end(resolve));
    assert.deepEqual(writes, [['last\n']]);
  });
});
