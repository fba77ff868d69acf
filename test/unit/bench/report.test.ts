// The bench's verdict on itself: a figure a section promised and did not report is missed, never silently absent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { held, notMeasured, renderTable, type Figure } from '../../../bench/lib/report';

const figure = (name: string, value: number, max: number): Figure => ({
  section: 'extension',
  name,
  value,
  unit: 'ms',
  reference: null,
  target: { max, on: 'value' },
});

test('a promised figure that was reported is not added again', () => {
  assert.deepEqual(notMeasured('extension', ['activate() returns (p50'], [figure('activate() returns (p50 of 9 cold)', 2, 3)]), []);
});

test('a promised figure missing from the section is added as not measured and counts as missed', () => {
  const added = notMeasured(
    'extension',
    ['activate() returns (p50', 'first status shown'],
    [figure('activate() returns (p50 of 9 cold)', 2, 3)],
  );
  assert.deepEqual(
    added.map((f) => f.name),
    ['first status shown (not measured)'],
  );
  assert.equal(held(added[0]!), false);
});

test('a figure reported by another section, or without a target, does not satisfy the promise', () => {
  const other: Figure = { ...figure('first status shown', 1, 2), section: 'guard' };
  const untargeted: Figure = { ...figure('first status shown, 3 local', 1, 2), target: null };
  assert.equal(notMeasured('extension', ['first status shown'], [other, untargeted]).length, 1);
});

test('the table names a failed section and the note of a missed target', () => {
  const missed: Figure = { ...figure('bundle extension.js (minified)', 687, 600), note: 'biggest inputs: zod 120 KB' };
  const table = renderTable([missed], [], [{ section: 'guard', reason: 'boom' }]);
  assert.match(table, /FAILED guard: boom/);
  assert.match(table, /missed extension: bundle extension.js \(minified\): biggest inputs: zod 120 KB/);
});
