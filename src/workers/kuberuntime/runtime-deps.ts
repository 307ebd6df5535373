// What the kuberuntime functions of a shard work with: its CRI channel, its image
// manager, the node settings and a logger. One object per shard.
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import type { ImagePullInterval, PodEventRecord, ShardSettings } from '../../shared/shard-protocol.js';
import type { ImageManager } from '../images/image-manager.js';
import type { CreationKind } from '../../shared/runtime-creation/creation-permits.js';
import { UNGUARDED_CREATIONS, type CreationGate } from './creation-gate.js';

export interface RuntimeDeps {
  cri: CriClient;
  images: ImageManager;
  settings: ShardSettings;
  logger: Logger;
  /**
   * Sends an event about the current sync's pod to the main thread at once, as
   * upstream's recorder.Eventf: each sync binds it to its pod.
   */
  publishEvent: (event: PodEventRecord) => void;
  /** The span of the current sync's image pulls, if it pulled. */
  imagePulls?: ImagePullInterval;
  /** True while the PLEG receives the runtime's container events (RuntimeEventsFlag); absent: never. */
  runtimeEventsLive?: () => boolean;
  /** The runtime contention guard: sandbox and container creations wait for a node-wide permit; absent: unguarded. */
  creations?: CreationGate;
}

/** Records an event of the current sync: it leaves the shard now, not with the sync's result. */
export function recordEvent(
  deps: RuntimeDeps,
  type: PodEventRecord['type'],
  reason: string,
  message: string,
  fieldPath?: string,
): void {
  deps.publishEvent({ type, reason, message, fieldPath, timestampMs: Date.now() });
}

/** Runs a creation's CRI calls under the shard's contention guard (with a permit, or at once when off). */
export function guardedCreation<T>(deps: RuntimeDeps, kind: CreationKind, create: () => Promise<T>): Promise<T> {
  return (deps.creations ?? UNGUARDED_CREATIONS).run(kind, create);
}

/** Widens the current sync's pull span with one pull that just ended after `pullMs`. */
export function recordImagePull(deps: RuntimeDeps, pullMs: number): void {
  const finishedAtMs = Date.now();
  const startedAtMs = finishedAtMs - pullMs;
  deps.imagePulls = {
    firstStartedAtMs: Math.min(deps.imagePulls?.firstStartedAtMs ?? Infinity, startedAtMs),
    lastFinishedAtMs: finishedAtMs,
  };
}

export { containerFieldPath } from '../../shared/events/event-types.js';

/** Upstream's minimumGracePeriodInSeconds: a kill always gives at least this much. */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;
/** Grace period for containers whose pod spec is unknown (orphans found in the runtime). */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
