// Makes sure a container's image is present before the container is created, as
// upstream's imageManager.EnsureImageExists: the pull policy decides, failed pulls
// back off per pod and image (ErrImagePull, then ImagePullBackOff), and every pull
// goes through the node-wide coordinator so that limits and de-duplication hold
// across all shards. What the shard knows of present images (image-presence.ts)
// spares the ImageStatus of most starts.
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import { ContainerStartError, ErrorCodes, ShardletError, toWire } from '../../shared/errors.js';
import type { PodApiData, PullCoordinatorApi, PullOutcome } from '../../shared/shard-protocol.js';
import type { AuthConfig } from '../../generated/cri/runtime/v1/AuthConfig.js';
import { KUBELET_BACKOFF_PERIOD_MS, MAX_CONTAINER_BACKOFF_MS, exponentialDelayMs } from '../../shared/backoff.js';
import { imageUserOf, type ImageUser } from './image-user.js';
import { ImagePresence, type PresentImage } from './image-presence.js';
import { pullAuthsFor } from './pull-secrets.js';
import type { Container, Pod } from '../../shared/types.js';

/** Upstream's image pull backoff: backOffPeriod doubling to MaxContainerBackOff, no jitter (flowcontrol.Backoff). */
const PULL_BACKOFF = { initialMs: KUBELET_BACKOFF_PERIOD_MS, multiplier: 2, maxMs: MAX_CONTAINER_BACKOFF_MS };

export interface EnsuredImage {
  imageRef: string;
  /** Present before this call: upstream's "already present on machine". */
  alreadyPresent: boolean;
  /** Time spent pulling (including waiting for another shard's pull of the same image). */
  pullMs: number;
  sizeBytes: number;
  /** The user the image runs as, when this call read the image's status (an image already present). */
  user?: ImageUser;
}

interface PullBackoff {
  /** Failed pulls in a row. */
  failures: number;
  untilMs: number;
  lastMessage: string;
}

/** Upstream's pull policy default: Always for :latest or untagged images, else IfNotPresent. */
export function effectivePullPolicy(container: Container): string {
  if (container.imagePullPolicy) return container.imagePullPolicy;
  const image = container.image ?? '';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  if (image.includes('@')) return 'IfNotPresent';
  return !lastSegment.includes(':') || lastSegment.endsWith(':latest') ? 'Always' : 'IfNotPresent';
}

export class ImageManager {
  private readonly backoffByKey = new Map<string, PullBackoff>();
  /** ImageStatus calls in flight by image: the pods of a burst that start together wait on one. */
  private readonly statusInFlight = new Map<string, Promise<PresentImage | undefined>>();

  constructor(
    private readonly cri: CriClient,
    private readonly pulls: PullCoordinatorApi,
    private readonly shardIndex: number,
    private readonly logger: Logger,
    private readonly presence: ImagePresence = new ImagePresence(undefined),
  ) {}

  /**
   * Resolves with the image reference to create the container from, and how it was
   * had. `onPulling` is called as a pull begins (not for a present image or one in
   * backoff), so that the Pulling event goes out before the pull, as upstream's.
   */
  async ensureImage(pod: Pod, container: Container, nowMs: number, apiData?: PodApiData, onPulling?: () => void): Promise<EnsuredImage> {
    const image = container.image ?? '';
    const policy = effectivePullPolicy(container);
    if (policy !== 'Always') {
      const present = await this.presentImage(image);
      if (present) return { imageRef: present.id, alreadyPresent: true, pullMs: 0, sizeBytes: present.sizeBytes, user: present.user };
      if (policy === 'Never') {
        throw new ContainerStartError(
          ErrorCodes.IMAGE_NEVER_PULL,
          `Container image "${image}" is not present with pull policy of Never`,
          'ErrImageNeverPull',
          container.name,
        );
      }
    }
    const key = `${pod.metadata?.uid}/${image}`;
    const backoff = this.backoffByKey.get(key);
    if (backoff && nowMs < backoff.untilMs) {
      throw new ContainerStartError(
        ErrorCodes.IMAGE_PULL_BACKOFF,
        `Back-off pulling image "${image}": ${backoff.lastMessage}`,
        'ImagePullBackOff',
        container.name,
        backoff.untilMs - nowMs,
      );
    }
    const pullStartedMs = Date.now();
    let auths: AuthConfig[];
    try {
      auths = pullAuthsFor(image, pod, apiData);
    } catch (err) {
      throw new ContainerStartError(ErrorCodes.IMAGE_PULL_FAILED, (err as Error).message, 'ErrImagePull', container.name);
    }
    onPulling?.();
    const outcome = await this.pullThroughCoordinator(image, auths, (pod.spec?.imagePullSecrets ?? []).map((secret) => secret.name ?? ''));
    if (outcome.ok) {
      this.backoffByKey.delete(key);
      const user = outcome.user as ImageUser | undefined;
      return { imageRef: outcome.imageRef, alreadyPresent: false, pullMs: Date.now() - pullStartedMs, sizeBytes: outcome.sizeBytes, user };
    }
    const failures = (backoff?.failures ?? 0) + 1;
    const delayMs = exponentialDelayMs(failures - 1, PULL_BACKOFF);
    this.backoffByKey.set(key, { failures, untilMs: Date.now() + delayMs, lastMessage: outcome.error.message });
    throw new ContainerStartError(ErrorCodes.IMAGE_PULL_FAILED, outcome.error.message, 'ErrImagePull', container.name, delayMs);
  }

  private async pullWithEach(image: string, auths: AuthConfig[]): Promise<string> {
    if (auths.length === 0) return (await this.cri.pullImage({ image: { image } })).image_ref;
    let lastError: unknown;
    for (const auth of auths) {
      try {
        return (await this.cri.pullImage({ image: { image }, auth })).image_ref;
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  }

  /** A container could not be created from the image: it may be gone, so the next start asks the runtime. */
  forgetImage(image: string): void {
    this.presence.forget(image);
  }

  /** Forgets the pull backoff of a pod that is gone. */
  forgetPod(uid: string): void {
    for (const key of this.backoffByKey.keys()) if (key.startsWith(`${uid}/`)) this.backoffByKey.delete(key);
  }

  /**
   * As upstream's getImageUser: the user `image` (a name or an image ID) runs as,
   * read from ImageStatus; root when the runtime does not know the image.
   */
  async imageUser(image: string): Promise<ImageUser> {
    return imageUserOf((await this.cri.imageStatus({ image: { image }, verbose: false })).image);
  }

  /** The image as this shard knows it, else as ImageStatus shows it now (one call for the starts that ask together). */
  private async presentImage(image: string): Promise<PresentImage | undefined> {
    const known = this.presence.get(image);
    if (known) return known;
    let asking = this.statusInFlight.get(image);
    if (!asking) {
      asking = this.askImageStatus(image).finally(() => this.statusInFlight.delete(image));
      this.statusInFlight.set(image, asking);
    }
    return asking;
  }

  /** ImageStatus, whose answer this shard then knows (an absent image is asked again next time). */
  private async askImageStatus(image: string): Promise<PresentImage | undefined> {
    const since = this.presence.stamp();
    const reply = await this.cri.imageStatus({ image: { image }, verbose: false });
    if (!reply.image?.id) return undefined;
    const present = { id: reply.image.id, sizeBytes: Number(reply.image.size ?? 0), user: imageUserOf(reply.image) };
    this.presence.learn(image, present, since);
    return present;
  }

  /**
   * Pulls once node-wide per image and credentials (a pod without the secrets must
   * not ride on another pod's authorised pull), trying each credential in turn as
   * upstream does, anonymously when there is none.
   */
  private async pullThroughCoordinator(image: string, auths: AuthConfig[], secretNames: string[]): Promise<PullOutcome> {
    const key = secretNames.length > 0 ? `${image}#${[...secretNames].sort().join(',')}` : image;
    const since = this.presence.stamp();
    const grant = await this.pulls.acquire(key, this.shardIndex);
    if (grant.role === 'follower') {
      // Another shard pulled it (and read its status after): this shard knows it present too.
      const outcome = grant.outcome;
      if (outcome.ok && outcome.user) this.presence.learn(image, { id: outcome.imageRef, sizeBytes: outcome.sizeBytes, user: outcome.user as ImageUser }, since);
      return outcome;
    }
    let outcome: PullOutcome;
    const startedMs = Date.now();
    try {
      const imageRef = await this.pullWithEach(image, auths);
      // As upstream's puller: the size for the Pulled event comes from ImageStatus after the pull (asked
      // anew: with pull policy Always the image may be another one now); the user comes with it.
      const present = await this.askImageStatus(image);
      outcome = { ok: true, imageRef, sizeBytes: present?.sizeBytes ?? 0, ...(present ? { user: present.user } : {}) };
      this.logger.info({ image, imageRef, durationMs: Date.now() - startedMs }, 'Pulled image');
    } catch (err) {
      const message = `Failed to pull image "${image}": ${(err as Error).message}`;
      outcome = { ok: false, error: toWire(new ShardletError(ErrorCodes.IMAGE_PULL_FAILED, message, { image })) };
      this.logger.warn({ image, code: ErrorCodes.IMAGE_PULL_FAILED, err: (err as Error).message }, 'Image pull failed');
    }
    await this.pulls.release(grant.ticket, outcome);
    return outcome;
  }
}

