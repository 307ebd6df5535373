import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Backoff, exponentialDelayMs, jitterMs } from '../../src/shared/backoff.js';

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

test('exponentialDelayMs: the un-jittered delay after n failures, capped, for derived backoffs', () => {
  const crash = { initialMs: 10_000, multiplier: 2, maxMs: 300_000 };
  assert.deepEqual([0, 1, 4, 5, 1_000].map((n) => exponentialDelayMs(n, crash)), [10_000, 20_000, 160_000, 300_000, 300_000]);
});

test('jitterMs adds up to the factor of the duration, as client-go wait.Jitter', () => {
  assert.equal(jitterMs(10_000, 0.5, () => 0), 10_000);
  assert.equal(jitterMs(10_000, 0.5, () => 0.5), 12_500);
  assert.equal(jitterMs(10_000, 0, () => 0.9), 10_000);
});
