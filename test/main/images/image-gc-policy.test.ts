// The image GC policy against modelled figures: what upstream's image GC manager
// removes for a given set of images, uses and disk figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { detectImages, planImageGc, type ImageGcSettings, type ImageRecord } from '../../../src/main/images/image-gc-policy.js';

const MB = 1_000_000;
const SETTINGS: ImageGcSettings = { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 120_000, maxAgeMs: 0 };

function seen(id: string, sizeBytes: number, pinned = false) {
  return { id, repoTags: [`${id}:1`], sizeBytes, pinned };
}

test('detection: new images are first seen now, images in use are last used now, vanished images are forgotten', () => {
  const records = new Map<string, ImageRecord>();
  detectImages(records, [seen('a', MB), seen('b', MB)], new Set(['a']), 1_000);
  detectImages(records, [seen('a', MB), seen('b', MB), seen('c', MB)], new Set(['a']), 5_000);
  assert.deepEqual([...records.values()].map((r) => [r.id, r.firstDetectedMs, r.lastUsedMs]), [['a', 1_000, 5_000], ['b', 1_000, 1_000], ['c', 5_000, 5_000]]);
  detectImages(records, [seen('a', MB)], new Set(), 9_000);
  assert.deepEqual([...records.keys()], ['a']);
});

test('over the high threshold: least recently used first, down to the low threshold; in use, pinned and too young images stay', () => {
  const records = new Map<string, ImageRecord>();
  detectImages(records, [seen('old', 30 * MB), seen('older', 30 * MB), seen('pinned', 500 * MB, true), seen('used', 500 * MB)], new Set(['used']), 0);
  detectImages(records, [seen('old', 30 * MB), seen('older', 30 * MB), seen('pinned', 500 * MB, true), seen('used', 500 * MB), seen('young', 500 * MB)], new Set(['used', 'old']), 200_000);
  // 1000 MB disk, 100 MB free: 90 % used; down to 80 % means freeing 100 MB.
  const plan = planImageGc(records, new Set(['used']), SETTINGS, { capacityBytes: 1000 * MB, availableBytes: 100 * MB }, 300_000);
  assert.equal(plan.usagePercent, 90);
  assert.equal(plan.bytesToFree, 100 * MB);
  assert.deepEqual(plan.remove.map((r) => r.image.id), ['older', 'old'], 'older was last used at 0, old at 200 s; young is under the minimum age');
  assert.equal(plan.bytesFound, 60 * MB, 'short of the goal: the manager reports FreeDiskSpaceFailed');
});

test('under the high threshold nothing goes for disk; imageMaximumGCAge removes images unused for longer, whatever the disk', () => {
  const records = new Map<string, ImageRecord>();
  detectImages(records, [seen('stale', MB), seen('fresh', MB), seen('used', MB)], new Set(['used']), 0);
  detectImages(records, [seen('stale', MB), seen('fresh', MB), seen('used', MB)], new Set(['used', 'fresh']), 50_000);
  const calm = { capacityBytes: 1000 * MB, availableBytes: 900 * MB };
  assert.deepEqual(planImageGc(records, new Set(['used']), SETTINGS, calm, 60_000).remove, []);
  const plan = planImageGc(records, new Set(['used']), { ...SETTINGS, maxAgeMs: 30_000 }, calm, 60_000);
  assert.deepEqual(plan.remove.map((r) => [r.image.id, r.reason]), [['stale', 'unused for longer than imageMaximumGCAge']]);
  assert.deepEqual(planImageGc(records, new Set(['used']), { ...SETTINGS, maxAgeMs: 30_000 }, undefined, 60_000).remove.length, 1, 'no disk figures: the age rule alone');
});

test('property: never an image in use or pinned, each image at most once, and the goal met whenever enough was eligible', () => {
  const image = fc.record({
    id: fc.string({ minLength: 1, maxLength: 4 }),
    sizeBytes: fc.integer({ min: 0, max: 500 * MB }),
    pinned: fc.boolean(),
    used: fc.boolean(),
    firstSeenMs: fc.integer({ min: 0, max: 1_000_000 }),
  });
  fc.assert(
    fc.property(
      fc.uniqueArray(image, { selector: (i) => i.id, maxLength: 20 }),
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 0, max: 99 }),
      fc.integer({ min: 1, max: 10_000 * MB }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.integer({ min: 0, max: 2_000_000 }),
      (images, high, lowRaw, capacityBytes, freeFraction, maxAgeMs) => {
        const low = Math.min(lowRaw, high - 1);
        const records = new Map<string, ImageRecord>();
        for (const i of images) records.set(i.id, { id: i.id, repoTags: [], sizeBytes: i.sizeBytes, pinned: i.pinned, firstDetectedMs: i.firstSeenMs, lastUsedMs: i.firstSeenMs });
        const inUse = new Set(images.filter((i) => i.used).map((i) => i.id));
        const settings = { highThresholdPercent: high, lowThresholdPercent: Math.max(low, 0), minAgeMs: 100_000, maxAgeMs };
        const nowMs = 1_500_000;
        const plan = planImageGc(records, inUse, settings, { capacityBytes, availableBytes: Math.trunc(capacityBytes * freeFraction) }, nowMs);
        const removed = plan.remove.map((r) => r.image.id);
        assert.equal(new Set(removed).size, removed.length);
        for (const id of removed) assert.ok(!inUse.has(id) && !records.get(id)!.pinned, id);
        if (plan.bytesFound < plan.bytesToFree) {
          const byDisk = new Set(plan.remove.filter((r) => r.reason === 'disk usage over the high threshold').map((r) => r.image.id));
          const eligibleLeft = [...records.values()].filter(
            (r) => !inUse.has(r.id) && !r.pinned && !removed.includes(r.id) && nowMs - r.firstDetectedMs >= settings.minAgeMs && !byDisk.has(r.id),
          );
          assert.deepEqual(eligibleLeft, [], 'a shortfall only when nothing eligible was left');
        }
      },
    ),
  );
});
