// Which metadata.generation a pod status was computed from (KEP 5067, GA and locked
// in 1.35). As upstream's podutil.CalculatePodStatusObservedGeneration and
// CalculatePodConditionObservedGeneration with PodObservedGenerationTracking on: the
// generation of the pod the kubelet synced, on the status and on each condition the
// kubelet sets. A pod without one (a static pod from a file) reports none.
import type { Pod, PodCondition } from '../types.js';

/** The pod's metadata.generation, or undefined when it has none. */
export function observedGenerationOf(pod: Pod): number | undefined {
  const generation = pod.metadata?.generation;
  return typeof generation === 'number' && generation > 0 ? generation : undefined;
}

/** The condition stamped with the generation it was computed from. */
export function withObservedGeneration(condition: PodCondition, generation: number | undefined): PodCondition {
  return generation === undefined ? condition : { ...condition, observedGeneration: generation };
}
