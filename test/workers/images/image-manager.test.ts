// A container start asks ImageStatus only when the shard does not know the image is
// present: from an earlier ImageStatus or a pull, trusted for a while and never past
// an image removal the kubelet began or a failed CreateContainer; pull policies keep
// upstream's meaning (Always pulls, Never never does).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import type { CriClient } from '../../../src/shared/cri/client.js';
import { ImageRemovals } from '../../../src/shared/images/image-removals.js';
import type { PullCoordinatorApi, PullGrant, PullOutcome } from '../../../src/shared/shard-protocol.js';
import type { Container, Pod } from '../../../src/shared/types.js';
import { ImageManager } from '../../../src/workers/images/image-manager.js';
import { IMAGE_PRESENCE_TTL_MS, ImagePresence } from '../../../src/workers/images/image-presence.js';

const logger = pino({ level: 'silent' });
const IMAGE = 'busybox:1.35';

/** A runtime holding some images, counting what it is asked. */
class FakeImages {
  readonly present = new Map<string, { id: string; size: number; uid?: { value: number } }>();
  statusCalls = 0;
  pullCalls = 0;
  readonly cri = {
    imageStatus: async ({ image }: { image: { image: string } }) => {
      this.statusCalls++;
      return { image: this.present.get(image.image) ?? null, info: {} };
    },
    pullImage: async ({ image }: { image: { image: string } }) => {
      this.pullCalls++;
      this.present.set(image.image, { id: `sha256:${image.image}`, size: 1000, uid: { value: 1000 } });
      return { image_ref: `sha256:${image.image}` };
    },
  } as unknown as CriClient;
}

/** Every pull leads: the shard pulls itself. */
const leaderAlways: PullCoordinatorApi = {
  acquire: async (): Promise<PullGrant> => ({ role: 'leader', ticket: 't' }),
  release: async (_ticket: string, _outcome: PullOutcome) => undefined,
};

function setup(now: () => number = Date.now) {
  const runtime = new FakeImages();
  const removals = new ImageRemovals();
  const images = new ImageManager(runtime.cri, leaderAlways, 0, logger, new ImagePresence(removals, now));
  return { runtime, removals, images };
}

const pod: Pod = { metadata: { uid: 'u1', name: 'p', namespace: 'default' }, spec: { containers: [] } };
const container = (imagePullPolicy: string): Container => ({ name: 'c', image: IMAGE, imagePullPolicy });

test('an image seen present is not asked about again for the next containers', async () => {
  const { runtime, images } = setup();
  runtime.present.set(IMAGE, { id: 'sha256:b', size: 5, uid: { value: 7 } });
  const first = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  const second = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  assert.equal(runtime.statusCalls, 1);
  assert.deepEqual(second, first);
  assert.deepEqual(second.user, { uid: 7 }, 'the user comes from what was known');
  assert.equal(second.alreadyPresent, true);
});

test('an image removal the kubelet began makes the next start ask again, and pull what is gone', async () => {
  const { runtime, removals, images } = setup();
  runtime.present.set(IMAGE, { id: 'sha256:b', size: 5 });
  await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  removals.removing();
  runtime.present.delete(IMAGE);
  const after = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  assert.equal(runtime.statusCalls, 3, 'asked, then ImageStatus after the pull');
  assert.equal(runtime.pullCalls, 1);
  assert.equal(after.alreadyPresent, false);
});

test('what is known is trusted for a while only', async () => {
  let nowMs = 1_000_000;
  const { runtime, images } = setup(() => nowMs);
  runtime.present.set(IMAGE, { id: 'sha256:b', size: 5 });
  await images.ensureImage(pod, container('IfNotPresent'), nowMs);
  nowMs += IMAGE_PRESENCE_TTL_MS - 1;
  await images.ensureImage(pod, container('IfNotPresent'), nowMs);
  assert.equal(runtime.statusCalls, 1);
  nowMs += 1;
  await images.ensureImage(pod, container('IfNotPresent'), nowMs);
  assert.equal(runtime.statusCalls, 2);
});

test('a failed CreateContainer forgets the image: the next start asks the runtime', async () => {
  const { runtime, images } = setup();
  runtime.present.set(IMAGE, { id: 'sha256:b', size: 5 });
  await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  images.forgetImage(IMAGE);
  runtime.present.delete(IMAGE);
  const after = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  assert.equal(runtime.pullCalls, 1, 'removed by hand: pulled again');
  assert.equal(after.alreadyPresent, false);
});

test('a pulled image is known with its user from the ImageStatus after the pull', async () => {
  const { runtime, images } = setup();
  const pulled = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  assert.deepEqual(pulled.user, { uid: 1000 }, 'no second ImageStatus for the user');
  const statusCalls = runtime.statusCalls;
  const next = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  assert.equal(runtime.statusCalls, statusCalls);
  assert.equal(next.alreadyPresent, true);
});

test('Always pulls whatever is known; Never pulls nothing and fails on an image not present', async () => {
  const { runtime, images } = setup();
  runtime.present.set(IMAGE, { id: 'sha256:b', size: 5 });
  await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  await images.ensureImage(pod, container('Always'), Date.now());
  await images.ensureImage(pod, container('Always'), Date.now());
  assert.equal(runtime.pullCalls, 2);
  const never = setup();
  await assert.rejects(never.images.ensureImage(pod, container('Never'), Date.now()), /not present with pull policy of Never/);
  assert.equal(never.runtime.pullCalls, 0);
});

test('starts that ask about one image together make one ImageStatus', async () => {
  const { runtime, images } = setup();
  runtime.present.set(IMAGE, { id: 'sha256:b', size: 5 });
  await Promise.all(Array.from({ length: 8 }, () => images.ensureImage(pod, container('IfNotPresent'), Date.now())));
  assert.equal(runtime.statusCalls, 1);
});

test("a shard that rode on another shard's pull knows the image present after it", async () => {
  const runtime = new FakeImages();
  const follower: PullCoordinatorApi = {
    acquire: async (): Promise<PullGrant> => {
      // The other shard's pull lands while this one waits for it.
      runtime.present.set(IMAGE, { id: 'sha256:b', size: 5, uid: { value: 7 } });
      return { role: 'follower', outcome: { ok: true, imageRef: 'sha256:b', sizeBytes: 5, user: { uid: 7 } } };
    },
    release: async () => undefined,
  };
  const images = new ImageManager(runtime.cri, follower, 1, logger, new ImagePresence(new ImageRemovals()));
  const pulled = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  assert.equal(pulled.alreadyPresent, false);
  const next = await images.ensureImage(pod, container('IfNotPresent'), Date.now());
  assert.equal(runtime.statusCalls, 1, 'asked once, before the pull: not again for the next container');
  assert.equal(runtime.pullCalls, 0, 'the other shard pulled');
  assert.deepEqual(next, { imageRef: 'sha256:b', alreadyPresent: true, pullMs: 0, sizeBytes: 5, user: { uid: 7 } });
});
