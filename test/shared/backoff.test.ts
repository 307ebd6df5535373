import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff } from '../../src/shared/backoff.js';

test('delays grow by the multiplier up to the cap, and reset starts over', () => {
  const backoff = new Backoff({ initialMs: 100, multiplier: 3, maxMs: 1_000, jitter: 0 });
  assert.deepEqual([1, 2, 3, 4, 5].map(() => backoff.next()), [100, 300, 900, 1_000, 1_000]);
  assert.equal(backoff.attempts, 5);
  assert.equal(backoff.backingOff, true);
  backoff.reset();
  assert.equal(backoff.backingOff, false);
  assert.equal(backoff.next(), 100);
});

test('jitter adds up to its fraction of each delay, never less than the delay', () => {
  for (const [random, expected] of [[0, 1_000], [0.5, 1_100], [0.999, 1_200]] as const) {
    const backoff = new Backoff({ initialMs: 1_000, jitter: 0.2, random: () => random });
    assert.equal(backoff.next(), expected, `random ${random}`);
  }
});

test('an initial delay above the cap is capped', () => {
  assert.equal(new Backoff({ initialMs: 5_000, maxMs: 2_000, jitter: 0 }).next(), 2_000);
});
