// What the kuberuntime functions of a shard work with: its CRI channel, its image
// manager, the node settings and a logger. One object per shard.
import type { Logger } from 'pino';
import type { CriClient } from '../../shared/cri/client.js';
import type { ShardSettings } from '../../shared/shard-protocol.js';
import type { ImageManager } from '../images/image-manager.js';

export interface RuntimeDeps {
  cri: CriClient;
  images: ImageManager;
  settings: ShardSettings;
  logger: Logger;
}

/** Upstream's minimumGracePeriodInSeconds: a kill always gives at least this much. */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;
/** Grace period for containers whose pod spec is unknown (orphans found in the runtime). */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
