// The image GC counts each removal as it begins (ImageRemovals), so that a shard
// that knows an image is present stops trusting that from then on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { ImageGcManager } from '../../../src/main/images/image-gc-manager.js';
import type { CriClient } from '../../../src/shared/cri/client.js';
import { ImageRemovals } from '../../../src/shared/images/image-removals.js';

const HOUR_MS = 3_600_000;

test('every image removal the GC begins moves the shared count, even one the runtime refuses', async () => {
  const removed: string[] = [];
  const cri = {
    listImages: async () => ({
      images: ['sha256:a', 'sha256:b'].map((id) => ({ id, repo_tags: [id], repo_digests: [], size: 10, pinned: false })),
    }),
    listContainers: async () => ({ containers: [] }),
    imageFsInfo: async () => ({ image_filesystems: [] }),
    removeImage: async ({ image }: { image: { image: string } }) => {
      removed.push(image.image);
      if (image.image === 'sha256:b') throw new Error('image is in use');
      return {};
    },
  } as unknown as CriClient;
  const removals = new ImageRemovals();
  const settings = { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 0, maxAgeMs: HOUR_MS };
  const gc = new ImageGcManager({ cri: () => cri, settings, periodMs: HOUR_MS, logger: pino({ level: 'silent' }), removals });
  const startMs = Date.now();
  await gc.collect(startMs);
  assert.equal(removals.count(), 0, 'the first pass only records');
  await gc.collect(startMs + 2 * HOUR_MS);
  assert.equal(removed.length, 2);
  assert.equal(removals.count(), 2);
});
