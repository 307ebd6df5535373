// The image garbage collector, as upstream's realImageGCManager run from the
// kubelet's StartGarbageCollection: every imageGC.periodMs (5 min, as upstream) it
// lists the runtime's images and containers, records when each image was first seen
// and last used, and removes what image-gc-policy.ts picks. It runs on the main
// thread over the kubelet API's CRI channel: a few calls every few minutes, never on
// a pod's start path. The image filesystem's capacity and free space come from
// statfs of the mount point ImageFsInfo names; a runtime whose mount point is not on
// this host (the simulated runtime's) gets the age rule only.
import { statfs } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import type { ImageRemovals } from '../../shared/images/image-removals.js';
import { EventReasons } from '../../shared/events/event-types.js';
import { detectImages, planImageGc, type ImageFsFigures, type ImageGcPlan, type ImageGcSettings, type ImageRecord } from './image-gc-policy.js';

export interface ImageGcManagerOptions {
  /** The kubelet API's CRI client, once the runtime answered. */
  cri: () => CriClient | undefined;
  settings: ImageGcSettings;
  periodMs: number;
  logger: Logger;
  /** A node event (cluster mode records it on the Node). */
  onNodeEvent?: (type: 'Warning', reason: string, message: string) => void;
  /** Counts each removal as it begins, so that the shards stop trusting what they knew of present images. */
  removals?: ImageRemovals;
}

export class ImageGcManager {
  private readonly records = new Map<string, ImageRecord>();
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(private readonly options: ImageGcManagerOptions) {}

  /** Upstream turns image GC off entirely when the high threshold is 100. */
  start(): void {
    const { settings, logger, periodMs } = this.options;
    if (settings.highThresholdPercent === 100) {
      logger.info('imageGCHighThresholdPercent is set 100, Disable image GC');
      return;
    }
    // The first pass only records what is there: every image is new, so none is old enough to go.
    void this.collect();
    this.timer = setInterval(() => void this.collect(), periodMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One pass; resolves with what it planned (tests), undefined when a pass was already running or the runtime is away. */
  async collect(nowMs = Date.now()): Promise<ImageGcPlan | undefined> {
    const cri = this.options.cri();
    if (!cri || this.running) return undefined;
    this.running = true;
    try {
      return await this.collectWith(cri, nowMs);
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'Image garbage collection failed');
      return undefined;
    } finally {
      this.running = false;
    }
  }

  private async collectWith(cri: CriClient, nowMs: number): Promise<ImageGcPlan> {
    const { logger, settings } = this.options;
    const [{ images }, { containers }] = await Promise.all([cri.listImages({}), cri.listContainers({})]);
    // A container names its image by ID (image_ref) or by the reference it was created with.
    const refs = new Set(containers.flatMap((container) => [container.image_ref, container.image?.image ?? '']));
    const inUse = new Set(
      images.filter((image) => refs.has(image.id) || image.repo_tags.some((tag) => refs.has(tag)) || image.repo_digests.some((d) => refs.has(d))).map((image) => image.id),
    );
    detectImages(this.records, images.map((image) => ({ id: image.id, repoTags: image.repo_tags, sizeBytes: Number(image.size), pinned: image.pinned })), inUse, nowMs);
    const plan = planImageGc(this.records, inUse, settings, await this.imageFsFigures(cri), nowMs);
    if (plan.bytesToFree > 0) {
      logger.info(
        { usage: plan.usagePercent, highThreshold: settings.highThresholdPercent, amountToFree: plan.bytesToFree, lowThreshold: settings.lowThresholdPercent },
        'Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold',
      );
    }
    for (const { image, reason } of plan.remove) {
      logger.info({ imageID: image.id, repoTags: image.repoTags, size: image.sizeBytes, reason }, 'Removing image to free bytes');
      try {
        this.options.removals?.removing();
        await cri.removeImage({ image: { image: image.id } });
        this.records.delete(image.id);
      } catch (err) {
        logger.warn({ imageID: image.id, err: (err as Error).message }, 'Failed to remove image');
      }
    }
    if (plan.bytesFound < plan.bytesToFree) {
      const message = `Failed to garbage collect required amount of images. Attempted to free ${plan.bytesToFree} bytes, but only found ${plan.bytesFound} bytes eligible to free.`;
      logger.warn(message);
      this.options.onNodeEvent?.('Warning', EventReasons.FreeDiskSpaceFailed, message);
    }
    return plan;
  }

  /** Capacity and free space of the filesystem holding the images; undefined when it is not on this host. */
  private async imageFsFigures(cri: CriClient): Promise<ImageFsFigures | undefined> {
    const reply = await cri.imageFsInfo({});
    const mountpoint = reply.image_filesystems[0]?.fs_id?.mountpoint;
    if (!mountpoint) return undefined;
    try {
      const stats = await statfs(mountpoint);
      return { capacityBytes: stats.blocks * stats.bsize, availableBytes: stats.bavail * stats.bsize };
    } catch {
      return undefined;
    }
  }
}
