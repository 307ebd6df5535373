// A pod's resource requests as the scheduler and the kubelet's admission count them:
// component-helpers' resource.PodRequests (AggregateContainerRequests with the
// KEP-753 sidecar formula, then the pod overhead). Requests are read through
// effectiveRequests, so an undefaulted manifest's limits stand in for missing requests
// exactly as API defaulting would have filled them.
import { effectiveRequests } from '../qos.js';
import { parseBytes, parseCpuMillis, type QuantityInput } from '../quantity.js';
import type { Container, Pod } from '../types.js';
import { isRestartableInitContainer } from '../kuberuntime/container-helpers.js';

/** The resources admission checks, in the units upstream's framework.Resource keeps. */
export interface ResourceVector {
  cpuMillis: number;
  memoryBytes: number;
  ephemeralStorageBytes: number;
}

type ResourceMap = Record<string, QuantityInput | undefined>;

export function emptyResources(): ResourceVector {
  return { cpuMillis: 0, memoryBytes: 0, ephemeralStorageBytes: 0 };
}

/** cpu, memory and ephemeral-storage of a resource list; absent entries are 0. */
export function resourceVector(resources: ResourceMap | undefined): ResourceVector {
  const cpu = resources?.cpu;
  const memory = resources?.memory;
  const storage = resources?.['ephemeral-storage'];
  return {
    cpuMillis: cpu === undefined ? 0 : parseCpuMillis(cpu),
    memoryBytes: memory === undefined ? 0 : parseBytes(memory),
    ephemeralStorageBytes: storage === undefined ? 0 : parseBytes(storage),
  };
}

export function addResources(a: ResourceVector, b: ResourceVector): ResourceVector {
  return {
    cpuMillis: a.cpuMillis + b.cpuMillis,
    memoryBytes: a.memoryBytes + b.memoryBytes,
    ephemeralStorageBytes: a.ephemeralStorageBytes + b.ephemeralStorageBytes,
  };
}

/** Per-dimension maximum, as upstream's maxResourceList. */
export function maxResources(a: ResourceVector, b: ResourceVector): ResourceVector {
  return {
    cpuMillis: Math.max(a.cpuMillis, b.cpuMillis),
    memoryBytes: Math.max(a.memoryBytes, b.memoryBytes),
    ephemeralStorageBytes: Math.max(a.ephemeralStorageBytes, b.ephemeralStorageBytes),
  };
}

function containerRequests(container: Container): ResourceVector {
  return resourceVector(effectiveRequests(container) as ResourceMap);
}

function containerLimitsVector(container: Container): ResourceVector {
  return resourceVector(container.resources?.limits as ResourceMap | undefined);
}

/**
 * As AggregateContainerRequests: app containers and sidecars run together and are
 * summed; a regular init container runs alone next to the sidecars started before
 * it, so the pod needs at least the largest such moment.
 */
export function aggregateContainerRequests(pod: Pod): ResourceVector {
  return aggregateOverContainers(pod, containerRequests);
}

/** As resource.PodLimits: the same aggregation over the containers' limits (absent limits count 0). */
export function aggregateContainerLimits(pod: Pod): ResourceVector {
  return aggregateOverContainers(pod, containerLimitsVector);
}

function aggregateOverContainers(pod: Pod, amountOf: (container: Container) => ResourceVector): ResourceVector {
  let total = emptyResources();
  for (const container of pod.spec?.containers ?? []) {
    total = addResources(total, amountOf(container));
  }
  let sidecarsSoFar = emptyResources();
  let initPeak = emptyResources();
  for (const container of pod.spec?.initContainers ?? []) {
    const amount = amountOf(container);
    let whileRunning: ResourceVector;
    if (isRestartableInitContainer(container)) {
      total = addResources(total, amount);
      sidecarsSoFar = addResources(sidecarsSoFar, amount);
      whileRunning = sidecarsSoFar;
    } else {
      whileRunning = addResources(amount, sidecarsSoFar);
    }
    initPeak = maxResources(initPeak, whileRunning);
  }
  return maxResources(total, initPeak);
}

/**
 * Each pod's requests, parsed once: admission asks for a candidate's requests and
 * again when it starts counting the admitted pod, and eviction ranks pods by them.
 * Keyed by the pod object, which the kubelet replaces (never edits) when a spec changes.
 */
const requestsByPod = new WeakMap<Pod, ResourceVector>();

/** As resource.PodRequests with default options: container aggregate plus spec.overhead. */
export function podRequests(pod: Pod): ResourceVector {
  const cached = requestsByPod.get(pod);
  if (cached) return cached;
  const overhead = pod.spec?.overhead as ResourceMap | undefined;
  const requests = addResources(aggregateContainerRequests(pod), resourceVector(overhead));
  requestsByPod.set(pod, Object.freeze(requests));
  return requests;
}
