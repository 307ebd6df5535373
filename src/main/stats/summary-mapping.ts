// CRI stats as Summary API pod stats, as upstream's CRI stats provider builds them
// (pkg/kubelet/stats/cri_stats_provider.go): from ListPodSandboxStats when the
// runtime has it, else from ListContainerStats grouped by the pod labels and summed
// (for runtimes that answer UNIMPLEMENTED for sandbox stats). Only running
// containers count (live-containers.ts); a pod the runtime gives no CPU or memory
// for gets its cgroup's or its containers' (pod-figures.ts); its volumes come from
// the volume stats cache. Pure: the caller makes the CRI calls and reads, and
// supplies what the kubelet knows (start times, filesystem capacity, volumes).
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL } from '../../shared/labels.js';
import type * as cri from '../../shared/cri/types.js';
import type { CpuUsageCache } from './cpu-usage-cache.js';
import { liveContainerStats, liveCount, type RunningContainers } from './live-containers.js';
import type { PodCgroupSample } from './pod-cgroup-stats.js';
import { cgroupCpu, cgroupMemory, lacksPodFigures, summedCpu, summedMemory } from './pod-figures.js';
import type { PodVolumeStats } from './volume-stats-cache.js';
import {
  summaryTimeFromNs,
  type ContainerStats,
  type CPUStats,
  type FsStats,
  type InterfaceStats,
  type MemoryStats,
  type NetworkStats,
  type PodStats,
} from './summary-types.js';

/** Capacity figures of a filesystem (statfs), which CRI usage figures lack. */
export interface FsCapacity {
  capacityBytes: number;
  availableBytes: number;
  inodes: number;
  inodesFree: number;
  /** Everything used on the filesystem, not only by what the figures are about. */
  usedBytes: number;
}

/** Start times the kubelet knows of a pod (its status), in epoch ms. */
export interface PodTimes {
  startTimeMs?: number;
  containerStartTimeMsByName: Map<string, number>;
}

export interface PodStatsContext {
  cpuCache: CpuUsageCache;
  podTimes(uid: string): PodTimes | undefined;
  /** Capacity of the filesystem holding writable layers (the image fs), for rootfs. */
  rootfsCapacity?: FsCapacity;
  /** Capacity of the filesystem holding the logs (the root dir's), for logs. */
  logsCapacity?: FsCapacity;
  /** metrics-server's ?only_cpu_and_memory=true: no network, filesystems or processes. */
  onlyCpuAndMemory: boolean;
  /** The running containers (ListContainers); undefined when the runtime did not say. */
  running?: RunningContainers;
  /** Pod cgroup figures, by pod UID, of the pods the runtime gave no CPU or memory for. */
  podCgroupSamples?: ReadonlyMap<string, PodCgroupSample>;
  /** The volume stats cache's latest figures of a pod. */
  volumeStats?(uid: string): PodVolumeStats | undefined;
}

type UInt64 = cri.UInt64Value__Output | null | undefined;

function value(wrapper: UInt64): number | undefined {
  return wrapper ? Number(wrapper.value) : undefined;
}

function timeOf(timestampNs: number | string | undefined): string {
  return summaryTimeFromNs(Number(timestampNs ?? 0));
}

export function cpuStats(cpu: cri.CpuUsage__Output | null | undefined, cacheId: string, cache: CpuUsageCache): CPUStats | undefined {
  if (!cpu) return undefined;
  const timestampNs = Number(cpu.timestamp);
  const usageCoreNanoSeconds = value(cpu.usage_core_nano_seconds);
  const fromRuntime = value(cpu.usage_nano_cores);
  const usageNanoCores =
    fromRuntime ?? (usageCoreNanoSeconds === undefined ? undefined : cache.usageNanoCores(cacheId, usageCoreNanoSeconds, timestampNs));
  return { time: timeOf(timestampNs), usageNanoCores, usageCoreNanoSeconds };
}

export function memoryStats(memory: cri.MemoryUsage__Output | null | undefined): MemoryStats | undefined {
  if (!memory) return undefined;
  return {
    time: timeOf(memory.timestamp),
    availableBytes: value(memory.available_bytes),
    usageBytes: value(memory.usage_bytes),
    workingSetBytes: value(memory.working_set_bytes),
    rssBytes: value(memory.rss_bytes),
    pageFaults: value(memory.page_faults),
    majorPageFaults: value(memory.major_page_faults),
  };
}

/** Usage from the runtime, capacity from the filesystem it lives on. */
export function fsStats(usage: cri.FilesystemUsage__Output | null | undefined, capacity: FsCapacity | undefined, timeNs?: number): FsStats | undefined {
  if (!usage && !capacity) return undefined;
  return {
    time: timeOf(usage?.timestamp ?? timeNs),
    availableBytes: capacity?.availableBytes,
    capacityBytes: capacity?.capacityBytes,
    usedBytes: value(usage?.used_bytes),
    inodesFree: capacity?.inodesFree,
    inodes: capacity?.inodes,
    inodesUsed: value(usage?.inodes_used),
  };
}

function interfaceStats(usage: cri.NetworkInterfaceUsage__Output): InterfaceStats {
  return {
    name: usage.name,
    rxBytes: value(usage.rx_bytes),
    rxErrors: value(usage.rx_errors),
    txBytes: value(usage.tx_bytes),
    txErrors: value(usage.tx_errors),
  };
}

/** The default interface inline and, as upstream, in the list with the others. */
export function networkStats(network: cri.NetworkUsage__Output | null | undefined): NetworkStats | undefined {
  if (!network?.default_interface) return undefined;
  const defaultInterface = interfaceStats(network.default_interface);
  return {
    time: timeOf(network.timestamp),
    ...defaultInterface,
    interfaces: [defaultInterface, ...network.interfaces.map(interfaceStats)],
  };
}

function startTime(ms: number | undefined): string | null {
  return ms && ms > 0 ? summaryTimeFromNs(ms * 1e6) : null;
}

function containerStats(stats: cri.ContainerStats__Output, times: PodTimes | undefined, ctx: PodStatsContext): ContainerStats {
  const attributes = stats.attributes;
  const name = attributes?.metadata?.name || attributes?.labels[CONTAINER_NAME_LABEL] || '';
  const entry: ContainerStats = {
    name,
    startTime: startTime(times?.containerStartTimeMsByName.get(name)),
    cpu: cpuStats(stats.cpu, attributes?.id ?? '', ctx.cpuCache),
    memory: memoryStats(stats.memory),
  };
  if (!ctx.onlyCpuAndMemory) {
    entry.rootfs = fsStats(stats.writable_layer, ctx.rootfsCapacity);
    entry.logs = fsStats(null, ctx.logsCapacity, Number(stats.cpu?.timestamp ?? 0));
  }
  return entry;
}

/**
 * A pod's ephemeral storage: its containers' writable layers (and logs, when
 * measured) and its local ephemeral volumes, as upstream's calcEphemeralStorage.
 */
function ephemeralStorage(containers: ContainerStats[], volumes: PodVolumeStats | undefined, capacity: FsCapacity | undefined, timeNs: number): FsStats {
  let usedBytes = 0;
  let inodesUsed = 0;
  for (const container of containers) {
    usedBytes += (container.rootfs?.usedBytes ?? 0) + (container.logs?.usedBytes ?? 0);
    inodesUsed += (container.rootfs?.inodesUsed ?? 0) + (container.logs?.inodesUsed ?? 0);
  }
  for (const volume of volumes?.localEphemeral ?? []) {
    usedBytes += volume.usedBytes ?? 0;
    inodesUsed += volume.inodesUsed ?? 0;
  }
  return { ...fsStats(null, capacity, timeNs)!, usedBytes, inodesUsed };
}

/** The filesystem figures of a pod: ephemeral storage and, once measured, its volumes. */
function addStorage(pod: PodStats, containers: ContainerStats[], ctx: PodStatsContext, timeNs: number): void {
  const volumes = ctx.volumeStats?.(pod.podRef.uid);
  pod['ephemeral-storage'] = ephemeralStorage(containers, volumes, ctx.rootfsCapacity, timeNs);
  const all = volumes ? [...volumes.localEphemeral, ...volumes.other] : [];
  if (all.length > 0) pod.volume = all;
}

function podRefOf(labels: Record<string, string>, metadata: cri.PodSandboxMetadata__Output | null | undefined): PodStats['podRef'] {
  return {
    name: metadata?.name || labels[POD_NAME_LABEL] || '',
    namespace: metadata?.namespace || labels[POD_NAMESPACE_LABEL] || '',
    uid: metadata?.uid || labels[POD_UID_LABEL] || '',
  };
}

/**
 * A pod whose sandbox was recreated may be listed twice: keep the sandbox with more
 * live containers (an old one on containerd 2.x lists its exited instances), then the
 * newer figures, as upstream keeps only a pod's latest sandbox.
 */
function latestSandboxPerPod(sandboxes: cri.PodSandboxStats__Output[], running: RunningContainers | undefined): cri.PodSandboxStats__Output[] {
  const byUid = new Map<string, cri.PodSandboxStats__Output>();
  const rank = (s: cri.PodSandboxStats__Output): [number, number] => {
    const containers = s.linux?.containers ?? [];
    return [liveCount(containers, running), Number(s.linux?.cpu?.timestamp ?? latestSampleNs(containers))];
  };
  for (const sandbox of sandboxes) {
    const uid = podRefOf(sandbox.attributes?.labels ?? {}, sandbox.attributes?.metadata).uid;
    const held = byUid.get(uid);
    if (!held) {
      byUid.set(uid, sandbox);
      continue;
    }
    const [heldContainers, heldAt] = rank(held);
    const [containers, at] = rank(sandbox);
    if (containers > heldContainers || (containers === heldContainers && at > heldAt)) byUid.set(uid, sandbox);
  }
  return [...byUid.values()];
}

/** One PodStats per pod the runtime reported sandboxes of (ListPodSandboxStats). */
export function podStatsFromSandboxes(sandboxes: cri.PodSandboxStats__Output[], ctx: PodStatsContext): PodStats[] {
  return latestSandboxPerPod(sandboxes, ctx.running).map((sandbox) => {
    const attributes = sandbox.attributes;
    const podRef = podRefOf(attributes?.labels ?? {}, attributes?.metadata);
    const times = ctx.podTimes(podRef.uid);
    const linux = sandbox.linux;
    const live = liveContainerStats(linux?.containers ?? [], ctx.running);
    const containers = live.map((stats) => containerStats(stats, times, ctx));
    const pod: PodStats = {
      podRef,
      startTime: startTime(times?.startTimeMs),
      containers,
      ...podCpuAndMemory(sandbox, podRef.uid, containers, live, ctx),
    };
    if (!ctx.onlyCpuAndMemory) {
      pod.network = networkStats(linux?.network);
      addStorage(pod, containers, ctx, Number(linux?.cpu?.timestamp ?? latestSampleNs(live)));
      const processCount = value(linux?.process?.process_count);
      if (processCount !== undefined) pod.process_stats = { process_count: processCount };
    }
    return pod;
  });
}

/**
 * Pods built from container stats alone: the live containers (one per name, see
 * live-containers.ts) grouped by the pod labels every container carries, pod CPU and
 * memory the containers' sums.
 */
export function podStatsFromContainers(stats: cri.ContainerStats__Output[], ctx: PodStatsContext): PodStats[] {
  const byPod = new Map<string, { podRef: PodStats['podRef']; entries: cri.ContainerStats__Output[] }>();
  for (const entry of liveContainerStats(stats, ctx.running)) {
    const podRef = podRefOf(entry.attributes?.labels ?? {}, null);
    if (!podRef.uid) continue;
    let group = byPod.get(podRef.uid);
    if (!group) byPod.set(podRef.uid, (group = { podRef, entries: [] }));
    group.entries.push(entry);
  }
  return [...byPod.values()].map(({ podRef, entries }) => {
    const times = ctx.podTimes(podRef.uid);
    const containers = entries.map((entry) => containerStats(entry, times, ctx));
    const latestNs = latestSampleNs(entries);
    const pod: PodStats = {
      podRef,
      startTime: startTime(times?.startTimeMs),
      containers,
      cpu: summedCpu(containers, `pod/${podRef.uid}`, latestNs, ctx.cpuCache),
      memory: summedMemory(containers, latestNs),
    };
    if (!ctx.onlyCpuAndMemory) addStorage(pod, containers, ctx, latestNs);
    return pod;
  });
}

function latestSampleNs(entries: cri.ContainerStats__Output[]): number {
  return Math.max(0, ...entries.map((entry) => Number(entry.cpu?.timestamp ?? 0)));
}

/** The runtime's pod figures; where it has none, the pod cgroup's, else the sum of its live containers'. */
function podCpuAndMemory(sandbox: cri.PodSandboxStats__Output, uid: string, containers: ContainerStats[], live: cri.ContainerStats__Output[], ctx: PodStatsContext): Pick<PodStats, 'cpu' | 'memory'> {
  const sandboxId = sandbox.attributes?.id ?? '';
  const linux = sandbox.linux;
  if (!lacksPodFigures(sandbox)) return { cpu: cpuStats(linux?.cpu, `pod/${sandboxId}`, ctx.cpuCache), memory: memoryStats(linux?.memory) };
  const sample = ctx.podCgroupSamples?.get(uid);
  const latestNs = latestSampleNs(live);
  const cpu = linux?.cpu?.usage_core_nano_seconds != null
    ? cpuStats(linux.cpu, `pod/${sandboxId}`, ctx.cpuCache)
    : (cgroupCpu(sample, `pod-cgroup/${sandboxId}`, ctx.cpuCache) ?? summedCpu(containers, `pod-sum/${sandboxId}`, latestNs, ctx.cpuCache));
  const memory = linux?.memory?.working_set_bytes != null ? memoryStats(linux.memory) : (cgroupMemory(sample) ?? summedMemory(containers, latestNs));
  return { cpu, memory };
}
