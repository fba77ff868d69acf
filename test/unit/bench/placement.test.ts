// The stdio probe comparison pins its servers to the last CPU this process may use: read from `taskset -cp`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAffinityList } from '../../../bench/lib/placement';

test('reads the CPUs of taskset -cp: lists, ranges and both', () => {
  assert.deepEqual(parseAffinityList("pid 4242's current affinity list: 0,1\n"), [0, 1]);
  assert.deepEqual(parseAffinityList("pid 4242's current affinity list: 0-3"), [0, 1, 2, 3]);
  assert.deepEqual(parseAffinityList("pid 4242's current affinity list: 0,2-3,7"), [0, 2, 3, 7]);
  assert.deepEqual(parseAffinityList("pid 4242's current affinity list: 5"), [5]);
});

test('reads nothing from an answer it does not understand, so the comparison runs unpinned', () => {
  assert.deepEqual(parseAffinityList('taskset: failed to get pid 4242 affinity: No such process'), []);
  assert.deepEqual(parseAffinityList("pid 4242's current affinity list: "), []);
  assert.deepEqual(parseAffinityList("pid 4242's current affinity mask: 3f"), []);
});
