// What one shard knows of the images on the node, so that a container start asks
// ImageStatus only when it does not know (upstream's EnsureImageExists and
// getImageUser ask it for every container). An image is known from an ImageStatus
// reply that found it or from this shard's pull (or another shard's, through the
// pull coordinator), with its ID, size and the user it runs as. What is known goes
// stale: the kubelet's own image GC removes images (ImageRemovals, a node-wide count,
// drops everything learnt before a removal began), someone may remove one by hand
// (crictl rmi), so an entry is trusted for IMAGE_PRESENCE_TTL_MS only, and a
// CreateContainer that fails forgets its image: the next attempt asks the runtime.
import type { ImageRemovals } from '../../shared/images/image-removals.js';
import type { ImageUser } from './image-user.js';

/** How long an image seen present is taken as present without asking again. */
export const IMAGE_PRESENCE_TTL_MS = 30_000;

export interface PresentImage {
  id: string;
  sizeBytes: number;
  user: ImageUser;
}

/** When a look at the runtime began: what it finds is no fresher than this. */
export interface PresenceStamp {
  atMs: number;
  /** ImageRemovals' count then. */
  removals: number;
}

interface Known {
  image: PresentImage;
  since: PresenceStamp;
}

export class ImagePresence {
  private readonly knownByName = new Map<string, Known>();

  constructor(
    private readonly removals: ImageRemovals | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The image named as a container spec names it, if known present and not stale. */
  get(name: string): PresentImage | undefined {
    const known = this.knownByName.get(name);
    if (!known) return undefined;
    if (this.now() - known.since.atMs < IMAGE_PRESENCE_TTL_MS && known.since.removals === this.removalCount()) return known.image;
    this.knownByName.delete(name);
    return undefined;
  }

  /** Taken before asking the runtime, so that a removal begun while it answers is not missed. */
  stamp(): PresenceStamp {
    return { atMs: this.now(), removals: this.removalCount() };
  }

  /** The runtime said the image is present (an ImageStatus, a pull), in a look begun at `since`. */
  learn(name: string, image: PresentImage, since: PresenceStamp): void {
    this.knownByName.set(name, { image, since });
  }

  /** Something suggests the image may be gone: ask the runtime next time. */
  forget(name: string): void {
    this.knownByName.delete(name);
  }

  private removalCount(): number {
    return this.removals?.count() ?? 0;
  }
}
