import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  AdaptiveLimit,
  DEFAULT_ADAPTIVE_LIMIT_OPTIONS,
  MAX_CREATION_LIMIT,
  MIN_CREATION_LIMIT,
  type LatencyWindow,
} from '../../../src/shared/runtime-creation/adaptive-limit.js';

/** A window of `count` sandbox creations of `ms` each (and as many containers of `containerMs`, when given). */
function window(ms: number, count: number, saturated = true, containerMs?: number): LatencyWindow {
  const byKind: LatencyWindow['byKind'] = { sandbox: { count, totalSeconds: (ms * count) / 1000 } };
  if (containerMs !== undefined) byKind.container = { count, totalSeconds: (containerMs * count) / 1000 };
  return { byKind, saturated };
}

/** A limiter that has left slow start at `limit`, with a 90 ms sandbox baseline and no cut pending. */
function settledAt(limit: number): AdaptiveLimit {
  const limiter = new AdaptiveLimit({ ...DEFAULT_ADAPTIVE_LIMIT_OPTIONS, initial: limit });
  limiter.update(window(90, 4, false));
  // A climb ends slow start; enough creations at the baseline then run out the cut's cooldown.
  limiter.update(window(900, 4, false));
  limiter.update(window(90, 64, false));
  while (limiter.limit < limit) limiter.update(window(90, 4));
  assert.equal(limiter.limit, limit);
  return limiter;
}

test('the bounds justify themselves: 2 to 64, starting low where the no-load latency can be learnt', () => {
  assert.equal(MIN_CREATION_LIMIT, 2);
  assert.equal(MAX_CREATION_LIMIT, 64);
  assert.equal(new AdaptiveLimit().limit, MIN_CREATION_LIMIT);
});

const cases: Array<{ name: string; start: () => AdaptiveLimit; windows: LatencyWindow[]; limits: number[]; changes?: string[] }> = [
  {
    name: 'slow start: with demand and latency near the first window’s, the limit doubles per window',
    start: () => new AdaptiveLimit(),
    windows: [window(90, 4), window(100, 4), window(120, 8), window(150, 16)],
    limits: [4, 8, 16, 32],
  },
  {
    name: 'without demand at the limit, latency that holds does not grow it',
    start: () => new AdaptiveLimit(),
    windows: [window(90, 4, false), window(90, 4, false)],
    limits: [2, 2],
    changes: ['held', 'held'],
  },
  {
    name: 'a window with no creation in it changes nothing',
    start: () => settledAt(8),
    windows: [{ byKind: {}, saturated: true }, { byKind: { sandbox: { count: 0, totalSeconds: 0 } }, saturated: true }],
    limits: [8, 8],
    changes: ['held', 'held'],
  },
  {
    name: 'after the first cut, latency that holds grows the limit by one',
    start: () => settledAt(8),
    windows: [window(90, 8), window(150, 8), window(170, 8)],
    limits: [9, 10, 11],
  },
  {
    name: 'latency above tolerance cuts in proportion: 2.5× the baseline cuts 16 by 2/2.5',
    start: () => settledAt(16),
    windows: [window(225, 4)],
    limits: [12],
    changes: ['cut'],
  },
  {
    name: 'far above tolerance the cut is at most a halving',
    start: () => settledAt(16),
    windows: [window(9000, 4)],
    limits: [8],
  },
  {
    name: 'after a cut, the creations admitted under the old limit finish before the next cut (their latency is the old limit’s)',
    start: () => settledAt(16),
    windows: [window(9000, 4), window(9000, 8), window(9000, 4), window(9000, 4)],
    limits: [8, 8, 8, 4],
    changes: ['cut', 'held', 'held', 'cut'],
  },
  {
    name: 'the limit never goes below its minimum',
    start: () => settledAt(3),
    windows: [window(9000, 4), window(9000, 40), window(9000, 40)],
    limits: [2, 2, 2],
  },
  {
    name: 'kinds keep their own baselines: more of the slower kind in a window is no climb',
    start: () => {
      const limiter = settledAt(8);
      limiter.update({ byKind: { sandbox: { count: 8, totalSeconds: 0.72 }, container: { count: 8, totalSeconds: 0.504 } }, saturated: false });
      return limiter;
    },
    windows: [{ byKind: { container: { count: 12, totalSeconds: 0.756 } }, saturated: true }, window(90, 12)],
    limits: [9, 10],
  },
];

for (const { name, start, windows, limits, changes } of cases) {
  test(name, () => {
    const limiter = start();
    const seen = windows.map((w) => {
      const change = limiter.update(w);
      return { limit: limiter.limit, change };
    });
    assert.deepEqual(seen.map((s) => s.limit), limits);
    if (changes) assert.deepEqual(seen.map((s) => s.change), changes);
  });
}

test('at its minimum the limit accepts a runtime that became slower for good, and grows again', () => {
  const limiter = settledAt(2);
  // Every window now takes 3× the old no-load latency, even at 2 at once.
  const limits: number[] = [];
  for (let i = 0; i < 40; i++) {
    limiter.update(window(270, 8));
    limits.push(limiter.limit);
  }
  assert.ok(limits.slice(0, 3).every((limit) => limit === 2), `held at the minimum first: ${limits.join(',')}`);
  assert.ok(limits.at(-1)! > 2, `then grew on the new baseline: ${limits.join(',')}`);
});

test('bounds that cannot hold are refused', () => {
  assert.throws(() => new AdaptiveLimit({ ...DEFAULT_ADAPTIVE_LIMIT_OPTIONS, min: 0 }), RangeError);
  assert.throws(() => new AdaptiveLimit({ ...DEFAULT_ADAPTIVE_LIMIT_OPTIONS, min: 8, max: 4 }), RangeError);
});

const windowArb: fc.Arbitrary<LatencyWindow> = fc.record({
  byKind: fc.dictionary(
    fc.constantFrom('sandbox', 'container'),
    fc.record({ count: fc.integer({ min: 0, max: 100 }), totalSeconds: fc.double({ min: 0, max: 1000, noNaN: true }) }),
  ),
  saturated: fc.boolean(),
});

test('property: whatever the latencies, the limit stays within its bounds and moves only by the rules', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 10 }),
      fc.integer({ min: 0, max: 100 }),
      fc.integer({ min: 0, max: 100 }),
      fc.array(windowArb, { maxLength: 200 }),
      (min, span, initial, windows) => {
        const options = { ...DEFAULT_ADAPTIVE_LIMIT_OPTIONS, min, max: min + span, initial };
        const limiter = new AdaptiveLimit(options);
        for (const w of windows) {
          const before = limiter.limit;
          const change = limiter.update(w);
          const after = limiter.limit;
          if (after < options.min || after > options.max || !Number.isInteger(after)) return false;
          if (change === 'held' && after !== before) return false;
          if (change === 'grew' && (after <= before || (!w.saturated))) return false;
          if (change === 'cut' && (after >= before || after < Math.floor(before / 2))) return false;
        }
        return true;
      },
    ),
  );
});
