// ImageService of the simulated runtime: pulls, failing pulls (for ErrImagePull),
// status of absent images, idempotent removal and the image filesystem.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isNotFound } from '../../src/shared/cri/client.js';
import { FullCriClient } from '../helpers/full-cri.js';
import { rejectionOf, startHarness, type SimHarness } from './harness.js';

describe('simulated runtime: images', () => {
  let h: SimHarness;
  before(async () => {
    h = await startHarness({ scale: 0, imageSizesBytes: { 'docker.io/library/nginx:1.25': 70_000_000 } });
  });
  after(async () => h.close());

  it('reports an absent image as null, not as an error', async () => {
    const reply = await h.client.imageStatus({ image: { image: 'alpine:3.19' } });
    assert.equal(reply.image, null);
  });

  it('pulls an image and then finds it by name, canonical name and ID', async () => {
    const { image_ref: ref } = await h.client.pullImage({ image: { image: 'nginx:1.25' } });
    assert.match(ref, /^sha256:[0-9a-f]{64}$/);
    const again = await h.client.pullImage({ image: { image: 'docker.io/library/nginx:1.25' } });
    assert.equal(again.image_ref, ref, 'the same image has the same ref');

    // CriClient decodes only an image's ID and size: the tags come from the whole reply.
    const full = new FullCriClient(h.socketPath);
    try {
      for (const name of ['nginx:1.25', 'docker.io/library/nginx:1.25', ref]) {
        const image = (await h.client.imageStatus({ image: { image: name } })).image;
        assert.ok(image, `found by ${name}`);
        assert.equal(image.id, ref);
        assert.deepEqual((await full.imageStatus({ image: { image: name } })).image?.repo_tags, ['docker.io/library/nginx:1.25']);
        assert.equal(image.size, 70_000_000);
      }
    } finally {
      full.close();
    }
    const other = await h.client.pullImage({ image: { image: 'nginx:1.26' } });
    assert.notEqual(other.image_ref, ref);
  });

  it("reports the image's user in ImageStatus as uid or username", async () => {
    const users: Array<[string, { uid: { value: number } | null; username: string }]> = [
      ['busybox:1.36', { uid: null, username: '' }],
      ['gcr.io/distroless/static:nonroot', { uid: { value: 65532 }, username: '' }],
      ['registry.local/named-user/app:1', { uid: null, username: 'app' }],
    ];
    for (const [name, user] of users) {
      await h.client.pullImage({ image: { image: name } });
      const image = (await h.client.imageStatus({ image: { image: name } })).image;
      assert.deepEqual({ uid: image?.uid, username: image?.username }, user, name);
    }
  });

  it('fails pulls of images that do not exist with NotFound', async () => {
    const err = await rejectionOf(h.client.pullImage({ image: { image: 'doesnotexist/app:1' } }));
    assert.ok(isNotFound(err));
    assert.match(err.message, /failed to pull and unpack image .*not found/);
    assert.equal((await h.client.imageStatus({ image: { image: 'doesnotexist/app:1' } })).image, null);
  });

  it('fails pulls from a registry host that does not resolve', async () => {
    const err = await rejectionOf(h.client.pullImage({ image: { image: 'registry.invalid/team/app:2' } }));
    assert.equal(err.code, GrpcStatus.UNKNOWN);
    assert.match(String(err.details), /lookup registry\.invalid: no such host/);
  });

  it('shares one download between concurrent pulls of the same image', async () => {
    const refs = await Promise.all(Array.from({ length: 5 }, () => h.client.pullImage({ image: { image: 'redis:7' } })));
    assert.equal(new Set(refs.map((r) => r.image_ref)).size, 1);
    const listed = await h.client.listImages({ filter: { image: { image: 'redis:7' } } });
    assert.equal(listed.images.length, 1);
  });

  it('removes images idempotently', async () => {
    await h.client.pullImage({ image: { image: 'busybox:1.35' } });
    await h.client.removeImage({ image: { image: 'busybox:1.35' } });
    await h.client.removeImage({ image: { image: 'busybox:1.35' } });
    assert.equal((await h.client.imageStatus({ image: { image: 'busybox:1.35' } })).image, null);
  });

  it('accounts pulled images in ImageFsInfo', async () => {
    const images = (await h.client.listImages()).images;
    const info = await h.client.imageFsInfo();
    const [fs] = info.image_filesystems;
    assert.equal(fs.used_bytes!.value, images.reduce((sum, image) => sum + image.size, 0));
    assert.ok(fs.timestamp > 0);
  });
});

describe('simulated runtime: a pull its caller gave up on', () => {
  let h: SimHarness;
  // Only the download costs time: 20 MB at 100 MB/s, 200 ms.
  before(async () => {
    h = await startHarness({ scale: 1, jitter: 0, callLatencyMs: { PullImage: 0 }, defaultImageSizeBytes: 20_000_000 });
  });
  after(async () => h.close());

  const waitOutTheDownload = () => new Promise((resolve) => setTimeout(resolve, 600));

  it('answers DeadlineExceeded and stores nothing when nobody else waits for it', async () => {
    const err = await rejectionOf(h.client.pullImage({ image: { image: 'cut:1' } }, 50));
    assert.equal(err.code, GrpcStatus.DEADLINE_EXCEEDED);
    await waitOutTheDownload();
    assert.equal((await h.client.imageStatus({ image: { image: 'cut:1' } })).image, null);
  });

  it('stores the image when another caller still waits for the same download', async () => {
    const patient = h.client.pullImage({ image: { image: 'shared:1' } }, 5_000);
    const hasty = await rejectionOf(h.client.pullImage({ image: { image: 'shared:1' } }, 50));
    assert.equal(hasty.code, GrpcStatus.DEADLINE_EXCEEDED);
    const { image_ref: ref } = await patient;
    assert.equal((await h.client.imageStatus({ image: { image: 'shared:1' } })).image?.id, ref);
  });
});
