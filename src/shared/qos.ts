// Pod QoS class and container OOM score adjustment, as upstream's
// v1qos.ComputePodQOS and pkg/kubelet/qos/policy.go GetContainerOOMScoreAdjust.
// Requests are read as the API server's defaulting leaves them (a missing request
// takes the limit), because manifests from files reach us undefaulted.
import { parseBytes, parseCpuMillis, type QuantityInput } from './quantity.js';
import type { Container, Pod } from './types.js';
import { isMirrorPod, isStaticPod } from './pod-kinds.js';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

export const GUARANTEED_OOM_SCORE_ADJ = -997;
export const BESTEFFORT_OOM_SCORE_ADJ = 1000;
/** scheduling.SystemCriticalPriority: priorities at or above it mark critical pods. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
const SYSTEM_NODE_CRITICAL_PRIORITY_CLASS = 'system-node-critical';

type ResourceMap = Record<string, QuantityInput>;

/** The container's requests with missing entries defaulted from its limits, as API defaulting does. */
export function effectiveRequests(container: Container): ResourceMap {
  const limits = (container.resources?.limits ?? {}) as ResourceMap;
  const requests = (container.resources?.requests ?? {}) as ResourceMap;
  return { ...limits, ...requests };
}

export function containerLimits(container: Container): ResourceMap {
  return (container.resources?.limits ?? {}) as ResourceMap;
}

/** Amount of cpu (millicores) or memory (bytes) in a resource map; 0 when absent. */
export function resourceAmount(resources: ResourceMap, name: 'cpu' | 'memory'): number {
  const quantity = resources[name];
  if (quantity === undefined) return 0;
  return name === 'cpu' ? parseCpuMillis(quantity) : parseBytes(quantity);
}

/** As v1qos.GetPodQOS: status.qosClass when the API server set it, else computed from the spec. */
export function podQOSClass(pod: Pod): QOSClass {
  const reported = pod.status?.qosClass;
  if (reported === 'Guaranteed' || reported === 'Burstable' || reported === 'BestEffort') return reported;
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const container of containers) {
    addPositive(requests, effectiveRequests(container));
    const found = addPositive(limits, containerLimits(container));
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      if (limits.get(name) !== request) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** Adds the positive cpu / memory amounts into totals; returns which names were present. */
function addPositive(totals: Map<string, number>, resources: ResourceMap): Set<string> {
  const found = new Set<string>();
  for (const name of ['cpu', 'memory'] as const) {
    const amount = resourceAmount(resources, name);
    if (amount <= 0) continue;
    found.add(name);
    totals.set(name, (totals.get(name) ?? 0) + amount);
  }
  return found;
}

/** As kubetypes.IsCriticalPod: static, mirror, or priority at system-critical level. */
export function isCriticalPod(pod: Pod): boolean {
  if (isStaticPod(pod) || isMirrorPod(pod)) return true;
  return (pod.spec?.priority ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
}

/** As GetContainerOOMScoreAdjust: -997 guaranteed or node-critical, 1000 best effort, burstable in between. */
export function containerOOMScoreAdjust(pod: Pod, container: Container, memoryCapacityBytes: number): number {
  if (isCriticalPod(pod) && pod.spec?.priorityClassName === SYSTEM_NODE_CRITICAL_PRIORITY_CLASS) {
    return GUARANTEED_OOM_SCORE_ADJ;
  }
  const qos = podQOSClass(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BESTEFFORT_OOM_SCORE_ADJ;
  // A container requesting 10% of the node's memory gets 900; one using more than
  // it asked for ends near 1000 and is the first the kernel kills.
  const memoryRequest = resourceAmount(effectiveRequests(container), 'memory');
  const adjust = 1000 - Math.trunc((1000 * memoryRequest) / memoryCapacityBytes);
  if (adjust < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adjust === BESTEFFORT_OOM_SCORE_ADJ) return adjust - 1;
  return adjust;
}
