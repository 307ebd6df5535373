// A pod's CPU and memory when the runtime's sandbox stats carry none (CRI-O sends no
// pod linux.cpu or linux.memory): first the pod cgroup shardlet made, then the sum
// of its containers' figures, as upstream's addPodCPUMemoryStats tries the pod's
// cgroup through cAdvisor before summing container stats. Without them a CRI-O pod
// had no figures at all, and the eviction ranking saw a working set of 0 for every pod.
import type * as cri from '../../shared/cri/types.js';
import type { CpuUsageCache } from './cpu-usage-cache.js';
import type { PodCgroupSample } from './pod-cgroup-stats.js';
import { summaryTimeFromNs, type ContainerStats, type CPUStats, type MemoryStats } from './summary-types.js';

/** Whether the runtime left out the pod's CPU or its memory working set. */
export function lacksPodFigures(sandbox: cri.PodSandboxStats__Output): boolean {
  const linux = sandbox.linux;
  return linux?.cpu?.usage_core_nano_seconds == null || linux?.memory?.working_set_bytes == null;
}

export function cgroupCpu(sample: PodCgroupSample | undefined, cacheId: string, cache: CpuUsageCache): CPUStats | undefined {
  if (sample?.usageCoreNanoSeconds === undefined) return undefined;
  const { usageCoreNanoSeconds, timestampNs } = sample;
  return { time: summaryTimeFromNs(timestampNs), usageNanoCores: cache.usageNanoCores(cacheId, usageCoreNanoSeconds, timestampNs), usageCoreNanoSeconds };
}

export function cgroupMemory(sample: PodCgroupSample | undefined): MemoryStats | undefined {
  if (sample?.workingSetBytes === undefined) return undefined;
  return {
    time: summaryTimeFromNs(sample.timestampNs),
    availableBytes: sample.availableBytes,
    usageBytes: sample.usageBytes,
    workingSetBytes: sample.workingSetBytes,
    rssBytes: sample.rssBytes,
    pageFaults: sample.pageFaults,
    majorPageFaults: sample.majorPageFaults,
  };
}

export function summedCpu(containers: ContainerStats[], cacheId: string, timeNs: number, cache: CpuUsageCache): CPUStats | undefined {
  if (!containers.some((c) => c.cpu?.usageCoreNanoSeconds !== undefined)) return undefined;
  const usageCoreNanoSeconds = containers.reduce((sum, c) => sum + (c.cpu?.usageCoreNanoSeconds ?? 0), 0);
  return { time: summaryTimeFromNs(timeNs), usageNanoCores: cache.usageNanoCores(cacheId, usageCoreNanoSeconds, timeNs), usageCoreNanoSeconds };
}

export function summedMemory(containers: ContainerStats[], timeNs: number): MemoryStats | undefined {
  if (!containers.some((c) => c.memory?.workingSetBytes !== undefined)) return undefined;
  const sum = (pick: (m: MemoryStats) => number | undefined) => containers.reduce((total, c) => total + (c.memory ? (pick(c.memory) ?? 0) : 0), 0);
  return {
    time: summaryTimeFromNs(timeNs),
    usageBytes: sum((m) => m.usageBytes),
    workingSetBytes: sum((m) => m.workingSetBytes),
    rssBytes: sum((m) => m.rssBytes),
    pageFaults: sum((m) => m.pageFaults),
    majorPageFaults: sum((m) => m.majorPageFaults),
  };
}
