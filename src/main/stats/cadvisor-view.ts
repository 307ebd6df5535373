// The cgroups /metrics/cadvisor reports, as upstream's kubelet shows them through
// cAdvisor (containerPrometheusLabelsFunc in pkg/kubelet/server/server.go over
// cAdvisor's PrometheusCollector): one entry per running container and one per pod
// cgroup, each with the labels container, id, image, name, namespace and pod, its
// spec (CPU shares, quota and period, memory limit) and its latest figures. Pure:
// SummaryProvider.cadvisorFigures gathers what it reads.
//
// What the entries are:
// - a container: container=<name>, image=<the pod spec's image>, name=<container ID>
//   (cAdvisor's containerd and CRI-O handlers alias a container by its ID), id=<the
//   pod cgroup>/<container ID>; CPU and memory from the runtime's container stats,
//   the spec from the pod spec as the kubelet writes it to the runtime
//   (milliCPUToShares of the request, milliCPUToQuota of the limit, 100 ms period).
// - the pod cgroup: container="", image="", name="", id=<the pod cgroup's path>
//   (`/pod<uid>` with cgroupsPerQOS off, where there is no pod cgroup to name);
//   figures from the summary's pod (the runtime's sandbox stats are the pod
//   cgroup's), page cache and CFS throttling from the pod cgroup itself, the spec
//   as ResourceConfigForPod.
// Not reported: the sandbox (pause) container's own cgroup, which cAdvisor lists
// with container="" and the pause image: CRI stats carry no figures for it apart from
// the pod's, and the community queries filter it out (container!="").
import { podCgroupLimits } from '../../shared/cm/pod-cgroup-config.js';
import { CPU_QUOTA_PERIOD_US, milliCPUToQuota, milliCPUToShares } from '../../shared/cm/cpu-shares.js';
import { cgroupPath, podCgroupName } from '../../shared/cm/cgroup-name.js';
import type * as cri from '../../shared/cri/types.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../../shared/labels.js';
import { containerLimits, effectiveRequests, podQOSClass, resourceAmount } from '../../shared/qos.js';
import type { PodCgroupSettings } from '../../shared/shard-protocol.js';
import type { Container, Pod } from '../../shared/types.js';
import type { CfsThrottling, PodCgroupSample } from './pod-cgroup-stats.js';
import type { CadvisorFigures } from './summary-provider.js';
import type { PodStats } from './summary-types.js';

/** The base labels of every series of one cgroup, as upstream's containerPrometheusLabelsFunc sets them. */
export interface CgroupLabels {
  container: string;
  id: string;
  image: string;
  name: string;
  namespace: string;
  pod: string;
}

/** cAdvisor's ContainerSpec figures: CPU always (cpu.shares is always there), quota only when set. */
export interface CgroupSpec {
  cpuShares: number;
  cpuPeriodUs: number;
  /** 0 when the cgroup has no CFS quota (cAdvisor then writes no container_spec_cpu_quota). */
  cpuQuotaUs: number;
  /** 0 for no limit, as cAdvisor's specMemoryValue. */
  memoryLimitBytes: number;
}

export interface CgroupMemory {
  atMs: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  cacheBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface CgroupView {
  labels: CgroupLabels;
  /** Unix seconds. */
  startTimeSeconds?: number;
  spec: CgroupSpec;
  cpu?: { usageSeconds: number; atMs: number };
  memory?: CgroupMemory;
  cfs?: CfsThrottling & { atMs: number };
}

const NS_PER_SECOND = 1e9;

function containerKey(podUid: string, containerName: string): string {
  return `${podUid}/${containerName}`;
}

/** The running container of each (pod, name): the newest created, as the summary keeps one per name. */
function runningByPodAndName(running: readonly cri.ContainerLean[]): Map<string, cri.ContainerLean> {
  const byKey = new Map<string, cri.ContainerLean>();
  for (const container of running) {
    const key = containerKey(container.labels[POD_UID_LABEL] ?? '', container.labels[CONTAINER_NAME_LABEL] ?? container.metadata?.name ?? '');
    const held = byKey.get(key);
    if (!held || Number(container.created_at) > Number(held.created_at)) byKey.set(key, container);
  }
  return byKey;
}

function specContainer(pod: Pod | undefined, name: string): Container | undefined {
  const spec = pod?.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].find((container) => container.name === name);
}

/** The container cgroup's spec as the kubelet sets it through the CRI (linuxContainerResources). */
function containerSpec(container: Container | undefined): CgroupSpec {
  const requestMillis = container ? resourceAmount(effectiveRequests(container), 'cpu') : 0;
  const limits = container ? containerLimits(container) : {};
  return {
    cpuShares: milliCPUToShares(requestMillis),
    cpuPeriodUs: CPU_QUOTA_PERIOD_US,
    cpuQuotaUs: milliCPUToQuota(resourceAmount(limits, 'cpu'), CPU_QUOTA_PERIOD_US),
    memoryLimitBytes: resourceAmount(limits, 'memory'),
  };
}

function podSpec(pod: Pod | undefined): CgroupSpec {
  const limits = pod ? podCgroupLimits(pod, 0) : {};
  return {
    cpuShares: limits.cpuShares ?? 0,
    cpuPeriodUs: limits.cpuPeriodUs ?? CPU_QUOTA_PERIOD_US,
    cpuQuotaUs: limits.cpuQuotaUs !== undefined && limits.cpuQuotaUs > 0 ? limits.cpuQuotaUs : 0,
    memoryLimitBytes: limits.memoryLimitBytes ?? 0,
  };
}

/** The pod cgroup's path below the hierarchy's mount, cAdvisor's container name for it. */
function podCgroupId(settings: PodCgroupSettings | undefined, pod: Pod | undefined, uid: string): string {
  if (!settings || !pod) return `/pod${uid}`;
  try {
    return cgroupPath(podCgroupName(settings.root, podQOSClass(pod), uid), settings.driver);
  } catch {
    return `/pod${uid}`;
  }
}

function epochMs(time: string | undefined | null): number | undefined {
  if (!time) return undefined;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? undefined : ms;
}

function memoryOf(stats: PodStats['memory'], sample?: PodCgroupSample): CgroupMemory | undefined {
  const atMs = epochMs(stats?.time);
  if (!stats || atMs === undefined) return undefined;
  return {
    atMs,
    usageBytes: stats.usageBytes,
    workingSetBytes: stats.workingSetBytes,
    rssBytes: stats.rssBytes,
    cacheBytes: sample?.cacheBytes,
    pageFaults: stats.pageFaults,
    majorPageFaults: stats.majorPageFaults,
  };
}

function cpuOf(stats: PodStats['cpu']): CgroupView['cpu'] {
  const atMs = epochMs(stats?.time);
  if (stats?.usageCoreNanoSeconds === undefined || atMs === undefined) return undefined;
  return { usageSeconds: stats.usageCoreNanoSeconds / NS_PER_SECOND, atMs };
}

function podView(stats: PodStats, pod: Pod | undefined, figures: CadvisorFigures): CgroupView {
  const { uid, name, namespace } = stats.podRef;
  const sample = figures.podCgroupSamples.get(uid);
  const startMs = epochMs(stats.startTime);
  return {
    labels: { container: '', id: podCgroupId(figures.podCgroups, pod, uid), image: '', name: '', namespace, pod: name },
    startTimeSeconds: startMs === undefined ? undefined : startMs / 1000,
    spec: podSpec(pod),
    cpu: cpuOf(stats.cpu),
    memory: memoryOf(stats.memory, sample),
    cfs: sample?.cfs ? { ...sample.cfs, atMs: sample.timestampNs / 1e6 } : undefined,
  };
}

/** Every cgroup /metrics/cadvisor reports: each pod's running containers, then the pod cgroup. */
export function cadvisorView(figures: CadvisorFigures): CgroupView[] {
  const running = runningByPodAndName(figures.running);
  const views: CgroupView[] = [];
  for (const stats of figures.pods) {
    const { uid, name: podName, namespace } = stats.podRef;
    const pod = figures.specs.get(uid);
    const podId = podCgroupId(figures.podCgroups, pod, uid);
    for (const container of stats.containers) {
      const listed = running.get(containerKey(uid, container.name));
      const containerId = listed?.id ?? '';
      const spec = specContainer(pod, container.name);
      const createdNs = Number(listed?.created_at ?? 0);
      const startMs = createdNs > 0 ? createdNs / 1e6 : epochMs(container.startTime);
      views.push({
        labels: {
          container: container.name,
          id: containerId ? `${podId}/${containerId}` : `${podId}/${container.name}`,
          image: spec?.image ?? listed?.image?.image ?? '',
          name: containerId,
          namespace,
          pod: podName,
        },
        startTimeSeconds: startMs === undefined ? undefined : startMs / 1000,
        spec: containerSpec(spec),
        cpu: cpuOf(container.cpu),
        memory: memoryOf(container.memory),
      });
    }
    views.push(podView(stats, pod, figures));
  }
  return views;
}
