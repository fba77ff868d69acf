// The bench's verdict on itself: a figure a section promised and did not report is missed, never silently absent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FLOOR_SLACK, held, notMeasured, renderTable, type Figure } from '../../../bench/lib/report';

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

test('a target below the floor measured in the same run is judged against the floor, with both numbers shown', () => {
  const cpu: Figure = { ...figure('1000 @ 30 s: CPU', 2.0, 1), unit: '% core', floor: { name: 'SDK 2.x transport alone', value: 1.9 } };
  assert.equal(held(cpu), true);
  const table = renderTable([cpu], []);
  assert.match(table, /\| floor/);
  assert.match(
    table,
    /below the floor extension: 1000 @ 30 s: CPU: target 1 % core, but SDK 2\.x transport alone measured 1\.90 % core in this run \(ours 2\.00 % core, 1\.05x the floor; holds at <= 1\.1x\)/,
  );
});

test("a figure far above an unreachable target's floor is missed: the floor excuses the target, not the distance to it", () => {
  const cpu: Figure = { ...figure('1000 @ 30 s: CPU', 3.1, 1), unit: '% core', floor: { name: 'SDK 2.x transport alone', value: 1.9 } };
  assert.equal(held(cpu), false);
  assert.match(renderTable([cpu], []), /\| NO/);
  assert.equal(held({ ...cpu, value: 1.9 * FLOOR_SLACK }), true);
});

test("a floor's own slack, tighter than the default, is the bound it holds at", () => {
  const rss: Figure = { ...figure('guard RSS idle', 45.5, 44.5), unit: 'MB', floor: { name: 'bare relay idle', value: 44.7, slack: 1.01 } };
  assert.equal(held(rss), false);
  assert.match(renderTable([rss], []), /1\.02x the floor; holds at <= 1\.01x\)/);
  assert.equal(held({ ...rss, value: 45.1 }), true);
});

test('a floor under the target changes nothing: the target is judged as usual', () => {
  const cpu: Figure = { ...figure('1000 @ 30 s: CPU', 3.1, 5), floor: { name: 'bare node:http', value: 1.9 } };
  assert.equal(held(cpu), true);
  assert.equal(held({ ...cpu, value: 6 }), false);
});

/** 640 us per probe against a baseline of 600, target 1.0x, with a floor measured at `floorUs`. */
const perProbe = (floorUs: number): Figure => ({
  ...figure('500 @ 1 s: CPU per probe', 640, 1),
  unit: 'us',
  reference: { name: 'baseline', value: 600 },
  target: { max: 1, on: 'ratio' },
  floor: { name: 'SDK 2.x transport alone', value: floorUs },
});

test('a ratio target is below the floor when the floor over the same reference is above it', () => {
  assert.equal(held(perProbe(620)), true);
  const table = renderTable([perProbe(620)], []);
  assert.match(table, /\| floor/);
  assert.match(
    table,
    /target 1x, but SDK 2\.x transport alone measured 620 us, 1\.03x baseline in this run \(ours 640 us, 1\.03x the floor/,
  );
});

test('a ratio target whose floor is under the reference is judged as usual', () => {
  assert.equal(held(perProbe(590)), false);
  assert.equal(held({ ...perProbe(590), value: 595 }), true);
});
