// The container garbage collector's settings: upstream's GCPolicy from its three
// deprecated flags (outside the KubeletConfiguration, as upstream keeps them in
// KubeletFlags), and shardlet's own --container-gc-period for upstream's fixed
// ContainerGCPeriod.
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import { formatGoDuration } from './duration.js';
import type { KubeletFlags } from './flags.js';
import type { KubeletOptions } from './kubelet-options.js';

/** Upstream's ContainerGCPeriod. */
export const CONTAINER_GC_PERIOD_MS = 60_000;
/** Upstream's defaults: MinAge 0, MaxPerPodContainer 1, MaxContainers -1 (no limit). */
export const DEFAULT_MIN_CONTAINER_AGE_MS = 0;
export const DEFAULT_MAX_PER_POD_CONTAINER = 1;
export const DEFAULT_MAX_CONTAINERS = -1;

/** The policy from the flags given; a negative minimum age is refused, as upstream's NewContainerGC does. */
export function containerGcSettings(flags: KubeletFlags): KubeletOptions['containerGC'] {
  const given = flags.upstream ?? {};
  const minAgeMs = (given['minimum-container-ttl-duration'] as number | undefined) ?? DEFAULT_MIN_CONTAINER_AGE_MS;
  if (minAgeMs < 0) {
    throw new ShardletError(
      ErrorCodes.FLAG_INVALID,
      `invalid value for flag --minimum-container-ttl-duration: invalid minimum garbage collection age: ${formatGoDuration(minAgeMs)}`,
      { flag: 'minimum-container-ttl-duration' },
    );
  }
  const periodMs = flags.containerGCPeriodMs ?? 0;
  if (periodMs < 0) {
    throw new ShardletError(ErrorCodes.FLAG_INVALID, `invalid value for flag --container-gc-period: must not be negative`, { flag: 'container-gc-period' });
  }
  return {
    minAgeMs,
    maxPerPodContainer: (given['maximum-dead-containers-per-container'] as number | undefined) ?? DEFAULT_MAX_PER_POD_CONTAINER,
    maxContainers: (given['maximum-dead-containers'] as number | undefined) ?? DEFAULT_MAX_CONTAINERS,
    // 0 is the default, as for the other period flags.
    periodMs: periodMs || CONTAINER_GC_PERIOD_MS,
  };
}
