import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InFlightBook } from '../../../src/guard/inFlightBook';

void describe('InFlightBook', () => {
  void it('keeps each request as a Map would, through slot reuse and growth, with 1 and "1" apart', () => {
    const book = new InFlightBook();
    const reference = new Map<string | number, { method: string; startedAt: number; modern: null }>();
    for (let i = 0; i < 300; i++) {
      const entry = { method: `m${i % 7}`, startedAt: i + 0.25, modern: null };
      const id = i % 2 ? i : String(i % 150);
      book.set(id, entry);
      reference.set(id, entry);
      if (i % 3 === 0) {
        const gone = i % 2 ? i - 2 : String((i - 3) % 150);
        assert.equal(book.delete(gone), reference.delete(gone));
      }
    }
    assert.equal(book.size, reference.size);
    assert.deepEqual([...book], [...reference]);
    assert.deepEqual([...book.keys()], [...reference.keys()]);
    for (const [id, entry] of reference) assert.deepEqual(book.get(id), entry);
    book.set(1, { method: 'a', startedAt: 1, modern: null });
    book.set('1', { method: 'b', startedAt: 2, modern: null });
    assert.equal(book.get(1)?.method, 'a');
    assert.equal(book.get('1')?.method, 'b');
  });

  void it('keeps a modern envelope, forgets everything on clear() and books again from empty', () => {
    const book = new InFlightBook();
    const modern = { version: '2026-07-28', meta: { a: 1 } };
    book.set('x', { method: 'server/discover', startedAt: 5, modern });
    assert.equal(book.get('x')?.modern, modern);
    assert.equal(book.delete('x'), true);
    assert.equal(book.delete('x'), false);
    assert.equal(book.get('x'), undefined);
    book.set('y', { method: 'ping', startedAt: 6, modern: null });
    assert.equal(book.get('y')?.modern, null);
    book.clear();
    assert.equal(book.size, 0);
    assert.deepEqual([...book], []);
    book.set(2, { method: 'ping', startedAt: 7, modern: null });
    assert.deepEqual(book.get(2), { method: 'ping', startedAt: 7, modern: null });
  });
});
