// The median and spread of a figure over repeated runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSpread, spreadOf } from '../../bench/spread.js';

test('the median of an odd count is the middle value, whatever the order', () => {
  assert.deepEqual(spreadOf([22.8, 13.9, 17.1]), { median: 17.1, min: 13.9, max: 22.8, runs: 3 });
});

test('the median of an even count is the mean of the middle two', () => {
  assert.deepEqual(spreadOf([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4, runs: 4 });
});

test('runs without the figure are left out, and none gives no spread', () => {
  assert.deepEqual(spreadOf([undefined, 2, Number.NaN, 4]), { median: 3, min: 2, max: 4, runs: 2 });
  assert.equal(spreadOf([]), undefined);
  assert.equal(spreadOf([undefined, Number.POSITIVE_INFINITY]), undefined);
});

test('printed as the median with the range in parentheses; one run alone', () => {
  assert.equal(formatSpread(spreadOf([2.68, 4.16, 3.1]), 2), '3.10 (2.68–4.16)');
  assert.equal(formatSpread(spreadOf([554]), 0), '554');
  assert.equal(formatSpread(undefined, 1), '–');
});
