// ImageService of the simulated runtime. A pull costs a manifest resolution and
// then the image's bytes over the shared registry link; pulls of the same image
// in flight at once share one download (as containerd's content store makes the
// second wait for the first's blobs). A pull of another tag (or a digest) of an
// image already there adds the reference to it without a download, so one image
// carries every tag pulled (critest's "3 repoTags in the result image"). A pull
// whose caller went away (its deadline passed) answers DeadlineExceeded and, when
// no other caller waits for the same download, stores nothing. ImageStatus of a
// missing image is an empty reply, not an error; RemoveImage removes the image
// with all its tags, and is idempotent.
import { status as GrpcStatus } from '@grpc/grpc-js';
import type * as cri from '../shared/cri/types.js';
import { imageUserOf, parseImageReference } from './image-catalog.js';
import type { SimContext } from './sim-context.js';
import { invalidArgument, SimError } from './sim-error.js';
import { nowNs, type ImageRecord } from './state-store.js';
import { toImage } from './views.js';

/** Where the sim claims to keep images, reported by ImageFsInfo. */
export const IMAGE_FS_MOUNTPOINT = '/var/lib/shardlet-sim/io.containerd.snapshotter.v1.overlayfs';
/** A rough inode count per image, for ImageFsInfo. */
const INODES_PER_IMAGE = 1_000;

/** One download shared by the pulls of the same reference, and how many of them still wait for it. */
interface PullInFlight {
  done: Promise<ImageRecord | undefined>;
  waiters: number;
}

export class ImageService {
  private readonly pullsInFlight = new Map<string, PullInFlight>();

  constructor(private readonly ctx: SimContext) {}

  async listImages(req: cri.ListImagesRequest__Output): Promise<cri.ListImagesResponse> {
    const wanted = req.filter?.image?.image;
    const store = this.ctx.store;
    const images = wanted ? [store.findImage(wanted)].filter((image) => image !== undefined) : [...store.imagesById.values()];
    await this.ctx.latency.wait('ListImages', images.length);
    return { images: images.map(toImage) };
  }

  async imageStatus(req: cri.ImageStatusRequest__Output): Promise<cri.ImageStatusResponse> {
    await this.ctx.latency.wait('ImageStatus');
    const image = this.ctx.store.findImage(req.image?.image ?? '');
    return { image: image ? toImage(image) : null, info: {} };
  }

  /** `signal` aborts when the caller went away (its deadline passed, or it cancelled). */
  async pullImage(req: cri.PullImageRequest__Output, signal?: AbortSignal): Promise<cri.PullImageResponse> {
    const name = req.image?.image ?? '';
    if (!name) throw invalidArgument('image spec must name an image');
    await untilAborted(this.ctx.latency.wait('PullImage'), signal);
    const ref = parseImageReference(name);
    const failure = this.ctx.catalog.pullFailure(ref);
    if (failure) throw failure;
    const present = this.ctx.store.findImage(name);
    if (present) return { image_ref: present.id };
    const record = this.recordFor(name);
    const sameContent = this.ctx.store.imagesById.get(record.id);
    if (sameContent) return { image_ref: addReferences(sameContent, record).id };
    let pull = this.pullsInFlight.get(ref.canonical);
    if (!pull) {
      const started: PullInFlight = { waiters: 0, done: Promise.resolve(undefined) };
      started.done = this.download(record, () => started.waiters > 0);
      this.pullsInFlight.set(ref.canonical, started);
      void started.done.finally(() => this.pullsInFlight.delete(ref.canonical));
      pull = started;
    }
    pull.waiters++;
    try {
      const pulled = await untilAborted(pull.done, signal);
      return { image_ref: pulled!.id };
    } finally {
      pull.waiters--;
    }
  }

  async removeImage(req: cri.RemoveImageRequest__Output): Promise<cri.RemoveImageResponse> {
    await this.ctx.latency.wait('RemoveImage');
    const image = this.ctx.store.findImage(req.image?.image ?? '');
    if (image) this.ctx.store.imagesById.delete(image.id);
    return {};
  }

  async imageFsInfo(): Promise<cri.ImageFsInfoResponse> {
    await this.ctx.latency.wait('ImageFsInfo');
    const images = [...this.ctx.store.imagesById.values()];
    const usedBytes = images.reduce((sum, image) => sum + image.sizeBytes, 0);
    const usage: cri.FilesystemUsage = {
      timestamp: nowNs(),
      fs_id: { mountpoint: IMAGE_FS_MOUNTPOINT },
      used_bytes: { value: usedBytes },
      inodes_used: { value: images.length * INODES_PER_IMAGE },
    };
    return { image_filesystems: [usage], container_filesystems: [] };
  }

  /** Puts an image in the store without a download, for images a node starts with. */
  preload(name: string): ImageRecord {
    return this.store(this.recordFor(name));
  }

  /** Moves the image's bytes; stores it unless every caller went away meanwhile (a cancelled pull keeps nothing). */
  private async download(record: ImageRecord, wanted: () => boolean): Promise<ImageRecord | undefined> {
    await this.ctx.latency.download(record.sizeBytes);
    if (!wanted()) {
      this.ctx.logger.debug({ image: record.repoTags[0] ?? record.repoDigests[0] }, 'Pull abandoned by its callers; nothing stored');
      return undefined;
    }
    const stored = this.store(record);
    this.ctx.logger.debug({ image: record.repoTags[0] ?? record.repoDigests[0], id: stored.id, sizeBytes: stored.sizeBytes }, 'Pulled image');
    return stored;
  }

  /** Adds the image, or its references to the image of the same ID already there. */
  private store(record: ImageRecord): ImageRecord {
    const present = this.ctx.store.imagesById.get(record.id);
    if (present) return addReferences(present, record);
    this.ctx.store.imagesById.set(record.id, record);
    return record;
  }

  private recordFor(name: string): ImageRecord {
    const ref = parseImageReference(name);
    const content = this.ctx.catalog.contentOf(ref);
    return {
      id: content.id,
      repoTags: ref.tag ? [`${ref.host}/${ref.path}:${ref.tag}`] : [],
      repoDigests: [content.repoDigest],
      sizeBytes: this.ctx.catalog.sizeOf(name, ref),
      pulledAtNs: nowNs(),
      user: imageUserOf(ref),
    };
  }
}

/** `image` now also carries the tags and repo digests of `pulled` (the same image under other names). */
function addReferences(image: ImageRecord, pulled: ImageRecord): ImageRecord {
  for (const tag of pulled.repoTags) if (!image.repoTags.includes(tag)) image.repoTags.push(tag);
  for (const digest of pulled.repoDigests) if (!image.repoDigests.includes(digest)) image.repoDigests.push(digest);
  return image;
}

/** Resolves as `work` does, or rejects with DeadlineExceeded once `signal` aborts (the caller is gone; the work goes on). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  const gone = () => new SimError(GrpcStatus.DEADLINE_EXCEEDED, 'failed to pull image: context deadline exceeded');
  if (signal.aborted) return Promise.reject(gone());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(gone());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
