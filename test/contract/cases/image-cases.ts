// The image service: cri-tools' pkg/validate image.go ("Image Manager") and
// idempotence.go, and api.proto's ImageService comments. Every case that removes
// the busybox image pulls its tags again afterwards (ContractContext.cleanup), so
// the shared containerd keeps the images other tests use.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { failureCode, type ContractCase, type ContractContext } from '../contract-context.js';

/** critest's fake image ID for RemoveImage of an image that is not there. */
const FAKE_IMAGE_ID = '0'.repeat(64);
/** Longer than any pull the runtime could still finish after its caller's deadline. */
const AFTER_DEADLINE_WAIT_MS = 2_000;

/** busybox's repository without a tag, e.g. 127.0.0.1:5000/busybox. */
function repositoryOf(ref: string): string {
  return ref.replace(/:[^:/]+$/, '');
}

/** Removes the busybox image (both its tags); both come back after the case. */
async function withoutBusybox(ctx: ContractContext): Promise<void> {
  const { busybox, busyboxOtherTag } = ctx.target;
  await ctx.ensureImage(busybox);
  await ctx.removeImageForCase(busybox, [busybox, busyboxOtherTag]);
  assert.equal((await ctx.client.imageStatus({ image: { image: busyboxOtherTag } })).image, null, 'both tags gone');
}

async function fullImageStatus(ctx: ContractContext, image: string) {
  return (await ctx.full.imageStatus({ image: { image } })).image;
}

export const IMAGE_CASES: ContractCase[] = [
  {
    name: 'ImageStatus names the image\'s user: a numeric user as uid, no user (root) as neither',
    spec: 'api.proto Image: "uid: UID that will run the command(s)... username: User that will run the command(s)... only one of uid and username is set"; critest image.go "image status should support all kinds of references" (Uid/Username)',
    async run(ctx) {
      await ctx.ensureImage(ctx.target.nonRoot.image);
      const nonRoot = await fullImageStatus(ctx, ctx.target.nonRoot.image);
      assert.ok(nonRoot, 'non-root image present');
      assert.equal(Number(nonRoot.uid?.value), ctx.target.nonRoot.uid);
      assert.equal(nonRoot.username, '');
      await ctx.ensureImage(ctx.target.busybox);
      const busybox = await fullImageStatus(ctx, ctx.target.busybox);
      assert.ok(busybox, 'busybox present');
      assert.equal(busybox.uid ?? null, null, 'busybox names no user: the kubelet reads that as root');
      assert.equal(busybox.username, '');
    },
  },
  {
    name: 'ImageStatus of an image that is not there answers a null image, not an error',
    spec: 'api.proto ImageStatus: "If the image is not present, returns a response with ImageStatusResponse.Image set to nil"',
    async run(ctx) {
      const reply = await ctx.client.imageStatus({ image: { image: `${repositoryOf(ctx.target.busybox)}:${ctx.uniqueName('absent')}` } });
      assert.equal(reply.image, null);
    },
  },
  {
    name: 'A pull by tag gives an image with that one repo tag, an ID and a size; removing it by ID takes it away',
    spec: 'critest image.go "public image with tag should be pulled and removed"',
    async run(ctx) {
      await withoutBusybox(ctx);
      const { image_ref: imageRef } = await ctx.client.pullImage({ image: { image: ctx.target.busybox } });
      const image = await fullImageStatus(ctx, ctx.target.busybox);
      assert.ok(image, 'pulled image present');
      assert.deepEqual(image.repo_tags, [ctx.target.busybox]);
      assert.equal(image.id, imageRef);
      assert.ok(Number(image.size) > 0, 'size');
      await ctx.client.removeImage({ image: { image: image.id } });
      assert.equal(await fullImageStatus(ctx, ctx.target.busybox), null);
    },
  },
  {
    name: 'A pull without a tag is tagged :latest',
    spec: 'critest image.go "public image without tag should be pulled and removed" (repo tags = [<name>:latest])',
    async run(ctx) {
      await withoutBusybox(ctx);
      const repository = repositoryOf(ctx.target.busybox);
      await ctx.client.pullImage({ image: { image: repository } });
      assert.deepEqual((await fullImageStatus(ctx, repository))?.repo_tags, [`${repository}:latest`]);
    },
  },
  {
    name: 'A pull by digest gives an image with no repo tag and that repo digest',
    spec: 'critest image.go "public image with digest should be pulled and removed"',
    async run(ctx) {
      await ctx.ensureImage(ctx.target.busybox);
      const [digestRef] = (await fullImageStatus(ctx, ctx.target.busybox))?.repo_digests ?? [];
      assert.match(digestRef ?? '', /@sha256:[0-9a-f]{64}$/);
      await withoutBusybox(ctx);
      await ctx.client.pullImage({ image: { image: digestRef } });
      const image = await fullImageStatus(ctx, digestRef);
      assert.deepEqual(image?.repo_tags, []);
      assert.deepEqual(image?.repo_digests, [digestRef]);
    },
  },
  {
    name: 'ImageStatus answers the same image by ID, by every repo tag and by every repo digest',
    spec: 'critest image.go "image status should support all kinds of references"',
    async run(ctx) {
      await ctx.ensureImage(ctx.target.busybox);
      const image = await fullImageStatus(ctx, ctx.target.busybox);
      assert.ok(image);
      for (const ref of [image.id, ...image.repo_tags, ...image.repo_digests]) {
        assert.deepEqual(await fullImageStatus(ctx, ref), image, `ImageStatus(${ref})`);
      }
    },
  },
  {
    name: 'Two tags of one image are one image carrying both repo tags, in ImageStatus and ListImages',
    spec: 'critest image.go "listImage should get exactly 3 repoTags in the result image"',
    async run(ctx) {
      const { busybox, busyboxOtherTag } = ctx.target;
      await withoutBusybox(ctx);
      const first = await ctx.client.pullImage({ image: { image: busybox } });
      const second = await ctx.client.pullImage({ image: { image: busyboxOtherTag } });
      assert.equal(first.image_ref, second.image_ref, 'one image ID');
      const listed = (await ctx.client.listImages({})).images.filter((image) => image.id === first.image_ref);
      assert.equal(listed.length, 1, 'one ListImages entry');
      assert.deepEqual([...listed[0].repo_tags].sort(), [busybox, busyboxOtherTag].sort());
      assert.deepEqual([...((await fullImageStatus(ctx, busybox))?.repo_tags ?? [])].sort(), [busybox, busyboxOtherTag].sort());
    },
  },
  {
    name: 'RemoveImage by one tag removes the image with all its tags',
    spec: 'critest image.go "removing image by one tag should remove all tags"',
    async run(ctx) {
      const { busybox, busyboxOtherTag } = ctx.target;
      await ctx.ensureImage(busybox);
      await ctx.ensureImage(busyboxOtherTag);
      await ctx.removeImageForCase(busybox, [busybox, busyboxOtherTag]);
      const { image_ref: id } = await ctx.client.pullImage({ image: { image: busybox } });
      await ctx.client.pullImage({ image: { image: busyboxOtherTag } });
      await ctx.client.removeImage({ image: { image: busybox } });
      for (const ref of [busybox, busyboxOtherTag, id]) assert.equal(await fullImageStatus(ctx, ref), null, `ImageStatus(${ref})`);
    },
  },
  {
    name: 'RemoveImage of an image that is not there succeeds, twice',
    spec: 'api.proto RemoveImage: "This call is idempotent, and must not return an error if the image has already been removed"; critest idempotence.go',
    async run(ctx) {
      await ctx.client.removeImage({ image: { image: FAKE_IMAGE_ID } });
      await ctx.client.removeImage({ image: { image: FAKE_IMAGE_ID } });
    },
  },
  {
    name: 'A pull past its deadline fails with DeadlineExceeded and leaves no image',
    spec: 'critest image.go "public image should timeout if requested" (1 ms deadline → DeadlineExceeded); a cancelled pull stores nothing',
    async run(ctx) {
      await withoutBusybox(ctx);
      assert.equal(await failureCode(ctx.client.pullImage({ image: { image: ctx.target.busybox } }, 1)), 'DEADLINE_EXCEEDED');
      await sleep(AFTER_DEADLINE_WAIT_MS);
      assert.equal(await fullImageStatus(ctx, ctx.target.busybox), null);
    },
  },
  {
    name: 'A pull of a tag the registry lacks fails with NotFound',
    spec: 'containerd maps a reference the registry does not have to NotFound; the kubelet shows ErrImagePull',
    async run(ctx) {
      const missing = `${repositoryOf(ctx.target.busybox)}:doesnotexist-${ctx.uniqueName('tag')}`;
      assert.equal(await failureCode(ctx.client.pullImage({ image: { image: missing } }, 60_000)), 'NOT_FOUND');
    },
  },
];
