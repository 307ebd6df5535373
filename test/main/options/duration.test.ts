import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatGoDuration, parseGoDuration } from '../../../src/main/options/duration.js';

test('Go duration strings parse to milliseconds', () => {
  const cases: Array<[string, number | undefined]> = [
    ['0', 0],
    ['0s', 0],
    ['20s', 20_000],
    ['1m', 60_000],
    ['1m30s', 90_000],
    ['2h45m', 9_900_000],
    ['1.5h', 5_400_000],
    ['100ms', 100],
    ['250us', 0.25],
    ['250µs', 0.25],
    ['1000000ns', 1],
    ['-5s', -5_000],
    ['+5s', 5_000],
    ['.5s', 500],
    ['', undefined],
    ['10', undefined],
    ['5 s', undefined],
    ['1d', undefined],
    ['s', undefined],
    ['1m30', undefined],
  ];
  for (const [text, want] of cases) assert.equal(parseGoDuration(text), want, JSON.stringify(text));
});

test('milliseconds format as Go prints durations', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [100, '100ms'],
    [20_000, '20s'],
    [120_000, '2m0s'],
    [90_500, '1m30.5s'],
    [3_600_000, '1h0m0s'],
  ];
  for (const [ms, want] of cases) assert.equal(formatGoDuration(ms), want);
});
