// The limits of a pod's own cgroup, as upstream's ResourceConfigForPod: CFS shares
// from the pod's CPU requests; for a Guaranteed pod also the CPU quota and memory
// limit from its limits; for a Burstable pod each of those only when every app
// container declares that limit (one unbounded container makes the pod unbounded);
// a BestEffort pod gets the minimum shares. podPidsLimit caps the pod's tasks.
import { addResources, aggregateContainerLimits, podRequests, resourceVector } from '../admission/pod-requests.js';
import { podQOSClass } from '../qos.js';
import { parseBytes, parseCpuMillis } from '../quantity.js';
import type { Container, Pod } from '../types.js';
import { CPU_QUOTA_PERIOD_US, MIN_CPU_SHARES, milliCPUToQuota, milliCPUToShares } from './cpu-shares.js';

/** What the kubelet writes into a cgroup; an absent field is left as the kernel has it. */
export interface CgroupLimits {
  cpuShares?: number;
  /** CFS quota in µs per cpuPeriodUs; -1 for no quota. */
  cpuQuotaUs?: number;
  cpuPeriodUs?: number;
  memoryLimitBytes?: number;
  pidsLimit?: number;
}

export function podCgroupLimits(pod: Pod, podPidsLimit: number): CgroupLimits {
  const requests = podRequests(pod);
  const overhead = resourceVector(pod.spec?.overhead as Record<string, string> | undefined);
  const limits = addResources(aggregateContainerLimits(pod), overhead);
  const cpuShares = milliCPUToShares(requests.cpuMillis);
  const cpuQuotaUs = milliCPUToQuota(limits.cpuMillis, CPU_QUOTA_PERIOD_US);
  const appContainers = pod.spec?.containers ?? [];
  const cpuLimitsDeclared = appContainers.every((container) => hasLimit(container, 'cpu'));
  const memoryLimitsDeclared = appContainers.every((container) => hasLimit(container, 'memory'));
  const result: CgroupLimits = {};
  switch (podQOSClass(pod)) {
    case 'Guaranteed':
      Object.assign(result, { cpuShares, cpuQuotaUs, cpuPeriodUs: CPU_QUOTA_PERIOD_US, memoryLimitBytes: limits.memoryBytes });
      break;
    case 'Burstable':
      result.cpuShares = cpuShares;
      if (cpuLimitsDeclared) Object.assign(result, { cpuQuotaUs, cpuPeriodUs: CPU_QUOTA_PERIOD_US });
      if (memoryLimitsDeclared) result.memoryLimitBytes = limits.memoryBytes;
      break;
    default:
      result.cpuShares = MIN_CPU_SHARES;
  }
  if (podPidsLimit > 0) result.pidsLimit = podPidsLimit;
  return result;
}

function hasLimit(container: Container, name: 'cpu' | 'memory'): boolean {
  const quantity = (container.resources?.limits as Record<string, string | number> | undefined)?.[name];
  if (quantity === undefined) return false;
  return (name === 'cpu' ? parseCpuMillis(quantity) : parseBytes(quantity)) > 0;
}
