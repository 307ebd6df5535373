// A pod's standing for the container garbage collector, from what the main thread
// knows of it: upstream's podWorkers.ShouldPodContentBeRemoved ('gone') and
// ShouldPodRuntimeBeRemoved ('terminated'). Eviction is added by the caller, which
// keeps the record of evicted pods.
import type { PodGcState } from '../../shared/kuberuntime/container-gc-policy.js';
import type { Pod } from '../../shared/types.js';
import type { WorkPhase } from '../podworkers/pod-workers.js';

export interface PodGcStateSources {
  /** The pod as its source has it, while a source wants it. */
  podManager: { get(uid: string): Pod | undefined };
  podWorkers: { phaseOf(uid: string): WorkPhase | undefined };
  /** Every configured source has delivered its first full set. */
  sourcesReady(): boolean;
}

/**
 * A pod a source still wants keeps its content unless it was deleted and has
 * terminated; a pod no source wants loses it once terminated; a pod the kubelet has
 * never heard of (an orphan) loses it only once every source is ready, since until
 * then it may be one a source has not delivered yet.
 */
export function podGcState(uid: string, sources: PodGcStateSources): PodGcState {
  const phase = sources.podWorkers.phaseOf(uid);
  const pod = sources.podManager.get(uid);
  if (pod) {
    if (phase !== 'terminated') return 'live';
    return pod.metadata?.deletionTimestamp ? 'gone' : 'terminated';
  }
  if (phase === undefined) return sources.sourcesReady() ? 'gone' : 'live';
  return phase === 'terminated' ? 'gone' : 'live';
}
