// /stats/summary's producer, as upstream's SummaryProvider over the CRI stats
// provider: pod and container figures from the runtime (ListPodSandboxStats, or
// ListContainerStats when the runtime does not implement sandbox stats) for the
// running containers ListContainers names, the image filesystem from ImageFsInfo,
// the node's own figures from /proc and statfs, volumes from the volume stats cache.
// A pod the runtime gives no CPU or memory for (CRI-O) is read from its pod cgroup.
// Runs on the main thread through the kubelet API's own CRI channel; at 500 pods one
// request is three CRI list calls, a few /proc reads and a pass over the reply.
import type { Logger } from 'pino';
import { isUnimplemented, type CriClient } from '../../shared/cri/client.js';
import type * as cri from '../../shared/cri/types.js';
import { ContainerState } from '../../shared/cri/types.js';
import { ErrorCodes, ShardletError } from '../../shared/errors.js';
import type { PodCgroupSettings } from '../../shared/shard-protocol.js';
import { POD_UID_LABEL } from '../../shared/labels.js';
import type { Pod } from '../../shared/types.js';
import { CpuUsageCache } from './cpu-usage-cache.js';
import { runningContainersFrom } from './live-containers.js';
import { fsCapacity, sampleNode, type NodeSample } from './node-stats.js';
import { PodCgroupSampler, type PodCgroupReader } from './pod-cgroup-sampler.js';
import { readPodCgroupSample, type PodCgroupSample } from './pod-cgroup-stats.js';
import { lacksPodFigures } from './pod-figures.js';
import { fsStats, podStatsFromContainers, podStatsFromSandboxes, type FsCapacity, type PodStatsContext, type PodTimes } from './summary-mapping.js';
import type { PodVolumeStats } from './volume-stats-cache.js';
import { summaryTime, type ContainerStats, type CPUStats, type FsStats, type MemoryStats, type NodeStats, type PodStats, type Summary } from './summary-types.js';

export interface SummarySource {
  nodeName: string;
  /** The kubelet's root directory (--root-dir): the node fs and the logs' capacity. */
  rootDir: string;
  /** The kubelet API's CRI client; undefined until the runtime answered at start-up. */
  cri(): CriClient | undefined;
  /** Start times the kubelet's pod statuses hold. */
  podTimes(uid: string): PodTimes | undefined;
  /** The kubelet's pod of this UID (its QoS class names its cgroup). */
  pod?(uid: string): Pod | undefined;
  /** The pod cgroup layout; undefined with cgroupsPerQOS off or before the cgroups are set up. */
  podCgroups?(): PodCgroupSettings | undefined;
  /** The latest measured volume figures of a pod (volume-stats-cache.ts). */
  volumeStats?(uid: string): PodVolumeStats | undefined;
  /** Reads a pod cgroup; tests give a fake. */
  readPodCgroup?: PodCgroupReader;
  logger: Logger;
}

type ImageFsInfo = cri.ImageFsInfoResponse__Output;

/** The figures /metrics/cadvisor is written from (SummaryProvider.cadvisorFigures). */
export interface CadvisorFigures {
  /** Every pod with its running containers, CPU and memory only. */
  pods: PodStats[];
  /** The running containers ListContainers named; empty when it failed. */
  running: cri.ContainerLean[];
  /** The kubelet's pods by UID (their specs give images and limits). */
  specs: ReadonlyMap<string, Pod>;
  /** The pod cgroup layout; undefined with cgroupsPerQOS off. */
  podCgroups?: PodCgroupSettings;
  /** Each pod cgroup's own figures, by pod UID. */
  podCgroupSamples: ReadonlyMap<string, PodCgroupSample>;
}

/** When this process started, epoch ms (the kubelet system container's startTime). */
const PROCESS_START_MS = Date.now() - process.uptime() * 1000;

export class SummaryProvider {
  private readonly cpuCache = new CpuUsageCache();
  private readonly podCgroupSampler: PodCgroupSampler;
  /** Every pod's cgroup for /metrics/cadvisor, apart from the summary's (which reads only pods the runtime gives no figures for). */
  private readonly cadvisorCgroupSampler: PodCgroupSampler;
  /** Learnt at the first UNIMPLEMENTED: asking again on every scrape would only cost a round trip. */
  private sandboxStatsUnimplemented = false;

  constructor(private readonly source: SummarySource) {
    this.podCgroupSampler = new PodCgroupSampler(source.readPodCgroup);
    this.cadvisorCgroupSampler = new PodCgroupSampler(source.readPodCgroup ?? ((settings, pod) => readPodCgroupSample(settings, pod, { v1CpuStat: true })));
  }

  /** The whole summary, or with `onlyCpuAndMemory` what metrics-server and /metrics/resource read. */
  async summary(onlyCpuAndMemory: boolean): Promise<Summary> {
    const cri = this.source.cri();
    if (!cri) throw new ShardletError(ErrorCodes.CRI_UNAVAILABLE, 'the container runtime has not answered yet; no stats');
    // One ImageFsInfo serves the image fs figures and the writable layers' capacity.
    const imageFsInfo = onlyCpuAndMemory ? Promise.resolve(undefined) : cri.imageFsInfo({}).catch(() => undefined);
    const [{ pods }, imageFs, node, rootFs] = await Promise.all([
      this.podStats(cri, onlyCpuAndMemory, imageFsInfo),
      onlyCpuAndMemory ? undefined : this.imageFs(imageFsInfo),
      sampleNode(!onlyCpuAndMemory),
      onlyCpuAndMemory ? undefined : fsCapacity(this.source.rootDir),
    ]);
    return { node: this.nodeStats(node, pods, rootFs, imageFs, onlyCpuAndMemory), pods };
  }

  /**
   * The node's part alone (memory, filesystems, image filesystem, PIDs): what the
   * eviction manager watches every period. No pod stats, so no CRI list of 500
   * sandboxes, until a threshold is met and it has to rank pods.
   */
  async nodeSummary(): Promise<Summary> {
    const cri = this.source.cri();
    if (!cri) throw new ShardletError(ErrorCodes.CRI_UNAVAILABLE, 'the container runtime has not answered yet; no stats');
    const imageFsInfo = cri.imageFsInfo({}).catch(() => undefined);
    const [imageFs, node, rootFs] = await Promise.all([this.imageFs(imageFsInfo), sampleNode(true), fsCapacity(this.source.rootDir)]);
    return { node: this.nodeStats(node, [], rootFs, imageFs, false), pods: [] };
  }

  /**
   * What /metrics/cadvisor reads (cadvisor-view.ts): the pods' CPU and memory as
   * ?only_cpu_and_memory=true has them, the running containers the same
   * ListContainers named (their IDs, images and creation times), and the pod
   * cgroups' own figures (page cache, CFS throttling) through a sampler of its own.
   */
  async cadvisorFigures(): Promise<CadvisorFigures> {
    const cri = this.source.cri();
    if (!cri) throw new ShardletError(ErrorCodes.CRI_UNAVAILABLE, 'the container runtime has not answered yet; no stats');
    const { pods, running } = await this.podStats(cri, true, Promise.resolve(undefined));
    const podCgroups = this.source.podCgroups?.();
    const specs = new Map<string, Pod>();
    for (const stats of pods) {
      const pod = this.source.pod?.(stats.podRef.uid);
      if (pod) specs.set(stats.podRef.uid, pod);
    }
    const podCgroupSamples = podCgroups ? await this.cadvisorCgroupSampler.samples(podCgroups, [...specs.values()]) : new Map<string, PodCgroupSample>();
    return { pods, running: running?.containers ?? [], specs, podCgroups, podCgroupSamples };
  }

  private async podStats(
    cri: CriClient,
    onlyCpuAndMemory: boolean,
    imageFsInfo: Promise<ImageFsInfo | undefined>,
  ): Promise<{ pods: PodStats[]; running: cri.ListContainersReply | undefined }> {
    const listed = this.runningContainers(cri);
    const running = listed.then((reply) => reply && runningContainersFrom(reply));
    const [rootfsCapacity, logsCapacity] = onlyCpuAndMemory ? [] : await this.capacities(imageFsInfo);
    const ctx: PodStatsContext = {
      cpuCache: this.cpuCache,
      podTimes: (uid) => this.source.podTimes(uid),
      rootfsCapacity,
      logsCapacity,
      onlyCpuAndMemory,
      volumeStats: this.source.volumeStats ? (uid) => this.source.volumeStats!(uid) : undefined,
    };
    if (!this.sandboxStatsUnimplemented) {
      try {
        const reply = await cri.listPodSandboxStats({});
        const [runningContainers, podCgroupSamples] = await Promise.all([running, this.podCgroupSamples(reply.stats)]);
        return { pods: podStatsFromSandboxes(reply.stats, { ...ctx, running: runningContainers, podCgroupSamples }), running: await listed };
      } catch (err) {
        if (isUnimplemented(err)) {
          this.sandboxStatsUnimplemented = true;
          this.source.logger.info('The runtime does not implement ListPodSandboxStats; pod stats are summed from ListContainerStats');
        } else {
          // One sandbox the runtime cannot read fails the whole list; the containers' figures still answer.
          this.source.logger.warn({ err: (err as Error).message }, 'ListPodSandboxStats failed; pod stats summed from ListContainerStats');
        }
      }
    }
    const [reply, runningContainers] = await Promise.all([cri.listContainerStats({}), running]);
    return { pods: podStatsFromContainers(reply.stats, { ...ctx, running: runningContainers }), running: await listed };
  }

  /**
   * The running containers, as upstream's getPodAndContainerMaps lists them to drop
   * terminated ones; undefined when the runtime would not say (the stats are then
   * de-duplicated by name alone).
   */
  private runningContainers(cri: CriClient): Promise<cri.ListContainersReply | undefined> {
    return cri
      .listContainers({ filter: { state: { state: ContainerState.CONTAINER_RUNNING } } })
      .catch((err: Error) => {
        this.source.logger.debug({ err: err.message }, 'ListContainers failed; container stats de-duplicated by name only');
        return undefined;
      });
  }

  /** Pod cgroup figures of the pods the runtime sent no CPU or memory for, by UID; none without pod cgroups. */
  private async podCgroupSamples(sandboxes: cri.PodSandboxStats__Output[]): Promise<Map<string, PodCgroupSample>> {
    const settings = this.source.podCgroups?.();
    if (!settings) return new Map();
    const pods = sandboxes.filter(lacksPodFigures).flatMap((sandbox) => {
      const pod = this.source.pod?.(sandbox.attributes?.metadata?.uid || sandbox.attributes?.labels[POD_UID_LABEL] || '');
      return pod ? [pod] : [];
    });
    return this.podCgroupSampler.samples(settings, pods);
  }

  /** Writable layers live on the image filesystem, logs on the root dir's. */
  private async capacities(imageFsInfo: Promise<ImageFsInfo | undefined>): Promise<[FsCapacity | undefined, FsCapacity | undefined]> {
    const info = await imageFsInfo;
    const mountpoint = info?.image_filesystems[0]?.fs_id?.mountpoint;
    const rootFs = await fsCapacity(this.source.rootDir);
    return [(mountpoint && (await fsCapacity(mountpoint))) || rootFs, rootFs];
  }

  private async imageFs(imageFsInfo: Promise<ImageFsInfo | undefined>): Promise<{ imageFs?: FsStats; containerFs?: FsStats }> {
    const info = await imageFsInfo;
    const images = info?.image_filesystems[0];
    if (!images) return {};
    const imageFs = fsStats(images, await fsCapacity(images.fs_id?.mountpoint ?? ''));
    const containers = info?.container_filesystems[0];
    const containerFs = containers ? fsStats(containers, await fsCapacity(containers.fs_id?.mountpoint ?? '')) : imageFs;
    return { imageFs, containerFs };
  }

  private nodeStats(
    sample: NodeSample,
    pods: PodStats[],
    rootFs: FsCapacity | undefined,
    runtime: { imageFs?: FsStats; containerFs?: FsStats } | undefined,
    onlyCpuAndMemory: boolean,
  ): NodeStats {
    const time = summaryTime(sample.atMs);
    const startTime = summaryTime(sample.bootTimeMs ?? PROCESS_START_MS);
    const cpu = this.cpu('node', sample.cpuUsageCoreNanoSeconds, sample.atMs);
    const node: NodeStats = {
      nodeName: this.source.nodeName,
      systemContainers: [this.kubeletContainer(sample.atMs), this.podsContainer(pods, startTime, sample.atMs)],
      startTime,
      cpu,
      memory: sample.memory,
    };
    if (onlyCpuAndMemory) return node;
    node.network = sample.network;
    if (rootFs) {
      node.fs = {
        time,
        availableBytes: rootFs.availableBytes,
        capacityBytes: rootFs.capacityBytes,
        usedBytes: rootFs.usedBytes,
        inodesFree: rootFs.inodesFree,
        inodes: rootFs.inodes,
        inodesUsed: rootFs.inodes - rootFs.inodesFree,
      };
    }
    node.runtime = runtime;
    node.rlimit = sample.rlimit;
    return node;
  }

  private cpu(cacheId: string, usageCoreNanoSeconds: number | undefined, atMs: number): CPUStats | undefined {
    if (usageCoreNanoSeconds === undefined) return undefined;
    const usageNanoCores = this.cpuCache.usageNanoCores(cacheId, usageCoreNanoSeconds, atMs * 1e6);
    return { time: summaryTime(atMs), usageNanoCores, usageCoreNanoSeconds };
  }

  /** shardlet itself, every thread included (upstream's "kubelet" system container). */
  private kubeletContainer(atMs: number): ContainerStats {
    const usage = process.cpuUsage();
    const rss = process.memoryUsage.rss();
    return {
      name: 'kubelet',
      startTime: summaryTime(PROCESS_START_MS),
      cpu: this.cpu('system/kubelet', (usage.user + usage.system) * 1000, atMs),
      memory: { time: summaryTime(atMs), usageBytes: rss, workingSetBytes: rss, rssBytes: rss },
    };
  }

  /** Every pod together (upstream's "pods" system container, the kubepods cgroup). */
  private podsContainer(pods: PodStats[], startTime: string, atMs: number): ContainerStats {
    let cpuNs = 0;
    const memory: MemoryStats = { time: summaryTime(atMs), usageBytes: 0, workingSetBytes: 0 };
    for (const pod of pods) {
      cpuNs += pod.cpu?.usageCoreNanoSeconds ?? 0;
      memory.usageBytes! += pod.memory?.usageBytes ?? 0;
      memory.workingSetBytes! += pod.memory?.workingSetBytes ?? 0;
    }
    // A sum over a changing set of pods is no counter: no rate from it.
    return { name: 'pods', startTime, cpu: { time: summaryTime(atMs), usageCoreNanoSeconds: cpuNs }, memory };
  }
}
