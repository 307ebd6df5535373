// ImageService of the simulated runtime. A pull costs a manifest resolution and
// then the image's bytes over the shared registry link; pulls of the same image
// in flight at once share one download (as containerd's content store makes the
// second wait for the first's blobs). ImageStatus of a missing image is an empty
// reply, not an error; RemoveImage is idempotent.
import type * as cri from '../shared/cri/types.js';
import { imageIdOf, imageUserOf, parseImageReference, repoDigestOf } from './image-catalog.js';
import type { SimContext } from './sim-context.js';
import { invalidArgument } from './sim-error.js';
import { nowNs, type ImageRecord } from './state-store.js';
import { toImage } from './views.js';

/** Where the sim claims to keep images, reported by ImageFsInfo. */
export const IMAGE_FS_MOUNTPOINT = '/var/lib/shardlet-sim/io.containerd.snapshotter.v1.overlayfs';
/** A rough inode count per image, for ImageFsInfo. */
const INODES_PER_IMAGE = 1_000;

export class ImageService {
  private readonly pullsInFlight = new Map<string, Promise<ImageRecord>>();

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

  async pullImage(req: cri.PullImageRequest__Output): Promise<cri.PullImageResponse> {
    const name = req.image?.image ?? '';
    if (!name) throw invalidArgument('image spec must name an image');
    await this.ctx.latency.wait('PullImage');
    const ref = parseImageReference(name);
    const failure = this.ctx.catalog.pullFailure(ref);
    if (failure) throw failure;
    const present = this.ctx.store.findImage(name);
    if (present) return { image_ref: present.id };
    let pull = this.pullsInFlight.get(ref.canonical);
    if (!pull) {
      pull = this.download(name);
      this.pullsInFlight.set(ref.canonical, pull);
      void pull.finally(() => this.pullsInFlight.delete(ref.canonical));
    }
    return { image_ref: (await pull).id };
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
    const record = this.recordFor(name);
    this.ctx.store.imagesById.set(record.id, record);
    return record;
  }

  private async download(name: string): Promise<ImageRecord> {
    const record = this.recordFor(name);
    await this.ctx.latency.download(record.sizeBytes);
    this.ctx.store.imagesById.set(record.id, record);
    this.ctx.logger.debug({ image: record.repoTag || record.repoDigest, id: record.id, sizeBytes: record.sizeBytes }, 'Pulled image');
    return record;
  }

  private recordFor(name: string): ImageRecord {
    const ref = parseImageReference(name);
    return {
      id: imageIdOf(ref),
      repoTag: ref.tag ? `${ref.host}/${ref.path}:${ref.tag}` : '',
      repoDigest: repoDigestOf(ref),
      sizeBytes: this.ctx.catalog.sizeOf(name, ref),
      pulledAtNs: nowNs(),
      user: imageUserOf(ref),
    };
  }
}
