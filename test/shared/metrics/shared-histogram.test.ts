import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bucketIndex, DEF_BUCKETS_SECONDS, exponentialBuckets, SharedHistograms } from '../../../src/shared/metrics/shared-histogram.js';
import { RUNTIME_OPERATION_BUCKETS_SECONDS } from '../../../src/shared/cri/call-counts.js';

test('the runtime operation buckets are upstream’s ExponentialBuckets(0.005, 2.5, 14), as Go prints them', () => {
  assert.equal(RUNTIME_OPERATION_BUCKETS_SECONDS.length, 14);
  assert.equal(RUNTIME_OPERATION_BUCKETS_SECONDS[0], 0.005);
  assert.equal(RUNTIME_OPERATION_BUCKETS_SECONDS[1], 0.0125);
  assert.equal(String(RUNTIME_OPERATION_BUCKETS_SECONDS[13]), '745.0580596923828');
});

test('exponentialBuckets refuses bounds that do not grow', () => {
  assert.throws(() => exponentialBuckets(0.005, 1, 3), RangeError);
  assert.throws(() => exponentialBuckets(0, 2, 3), RangeError);
  assert.throws(() => exponentialBuckets(1, 2, 0), RangeError);
});

test('a value on a bound lands in that bound’s bucket (le semantics); above every bound only +Inf holds it', () => {
  assert.equal(bucketIndex(DEF_BUCKETS_SECONDS, 0.005), 0);
  assert.equal(bucketIndex(DEF_BUCKETS_SECONDS, 0.0051), 1);
  assert.equal(bucketIndex(DEF_BUCKETS_SECONDS, 0), 0);
  assert.equal(bucketIndex(DEF_BUCKETS_SECONDS, 10), DEF_BUCKETS_SECONDS.length - 1);
  assert.equal(bucketIndex(DEF_BUCKETS_SECONDS, 10.5), DEF_BUCKETS_SECONDS.length);
});

const boundsArb = fc
  .uniqueArray(fc.double({ min: 1e-6, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 20 })
  .map((bounds) => [...bounds].sort((a, b) => a - b));

test('property: cumulative buckets equal the number of observations ≤ each bound; count and sum match', () => {
  fc.assert(
    fc.property(boundsArb, fc.array(fc.double({ min: 0, max: 2e4, noNaN: true }), { maxLength: 200 }), (bounds, values) => {
      const histograms = new SharedHistograms(bounds, 3);
      for (const value of values) histograms.observe(1, value);
      const snapshot = histograms.read(1);
      assert.equal(snapshot.count, values.length);
      bounds.forEach((bound, index) => assert.equal(snapshot.cumulative[index], values.filter((v) => v <= bound).length));
      const expectedSum = values.reduce((sum, v) => sum + v, 0);
      // The sum is kept in integer nanounits: at most half a nanounit off per observation.
      assert.ok(Math.abs(snapshot.sum - expectedSum) <= values.length * 1e-9 + 1e-9 * Math.abs(expectedSum) + 1e-6);
      // Rows are apart: the others stay empty.
      assert.equal(histograms.read(0).count, 0);
      assert.equal(histograms.read(2).count, 0);
    }),
  );
});

test('property: cumulative counts never decrease and never exceed the count', () => {
  fc.assert(
    fc.property(boundsArb, fc.array(fc.double({ min: 0, max: 2e4, noNaN: true }), { maxLength: 100 }), (bounds, values) => {
      const histograms = new SharedHistograms(bounds, 1);
      for (const value of values) histograms.observe(0, value);
      const { cumulative, count } = histograms.read(0);
      for (let i = 1; i < cumulative.length; i++) assert.ok(cumulative[i] >= cumulative[i - 1]);
      assert.ok(cumulative.at(-1)! <= count);
    }),
  );
});

test('two views of one buffer at an offset share their figures', () => {
  const bytes = SharedHistograms.byteLength(2, DEF_BUCKETS_SECONDS);
  const buffer = new SharedArrayBuffer(64 + bytes);
  const writer = new SharedHistograms(DEF_BUCKETS_SECONDS, 2, buffer, 64);
  const reader = new SharedHistograms(DEF_BUCKETS_SECONDS, 2, buffer, 64);
  writer.observe(1, 0.3);
  assert.deepEqual(reader.read(1), { count: 1, sum: 0.3, cumulative: DEF_BUCKETS_SECONDS.map((bound) => (0.3 <= bound ? 1 : 0)) });
});
