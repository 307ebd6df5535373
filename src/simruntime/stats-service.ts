// Resource usage of the simulated runtime's containers and sandboxes (CRI
// ContainerStats, ListContainerStats, PodSandboxStats, ListPodSandboxStats). Nothing
// runs, so the figures are modelled: CPU time grows with the time a container has
// been running at a fixed fraction of a core (a tenth of its CPU limit when it has
// one), the working set is a share of its memory limit or a constant, and every
// figure carries the time it was taken. Each figure is a few multiplications, so a
// list over 500 pods costs little more than building the reply. What the sandbox
// stats hold follows the personality: containerd 2.x lists exited instances with
// no figures, CRI-O has no pod-level CPU and memory (personality.ts).
import type * as cri from '../shared/cri/types.js';
import { labelsMatch } from './filters.js';
import type { RuntimePersonality } from './personality.js';
import type { SimContext } from './sim-context.js';
import { nowNs, type ContainerRecord, type SandboxRecord } from './state-store.js';

/** CPU a container without a CPU limit burns: 2 % of a core. */
export const DEFAULT_CPU_CORES = 0.02;
/** A container with a CPU limit burns a tenth of it. */
const CPU_LIMIT_SHARE = 0.1;
/** Working set of a container without a memory limit. */
export const DEFAULT_WORKING_SET_BYTES = 8 * 1024 * 1024;
/** A container with a memory limit uses a quarter of it. */
const MEMORY_LIMIT_SHARE = 0.25;
/** The pause process of each sandbox. */
const PAUSE_WORKING_SET_BYTES = 512 * 1024;
const PAUSE_CPU_CORES = 0.0005;
/** Bytes the default interface moves per second of the sandbox's life, each way. */
const NETWORK_BYTES_PER_SECOND = 200;
/** What a container writes to its writable layer. */
const WRITABLE_LAYER_BYTES = 16 * 1024;
const WRITABLE_LAYER_INODES = 12;
const WRITABLE_LAYER_MOUNTPOINT = '/var/lib/shardlet-sim/io.containerd.snapshotter.v1.overlayfs';
const NS_PER_SECOND = 1e9;

function cpuCores(container: ContainerRecord): number {
  const quota = Number(container.resources?.cpu_quota ?? container.config.linux?.resources?.cpu_quota ?? 0);
  const period = Number(container.resources?.cpu_period ?? container.config.linux?.resources?.cpu_period ?? 0);
  return quota > 0 && period > 0 ? (quota / period) * CPU_LIMIT_SHARE : DEFAULT_CPU_CORES;
}

function memoryLimitBytes(container: ContainerRecord): number {
  return Number(container.resources?.memory_limit_in_bytes ?? container.config.linux?.resources?.memory_limit_in_bytes ?? 0);
}

/** Nanoseconds the container's process has run: since its start, until its end if it ended. */
function runningNs(container: ContainerRecord, atNs: number): number {
  if (!container.startedAtNs) return 0;
  const endNs = container.finishedAtNs > 0 ? container.finishedAtNs : atNs;
  return Math.max(endNs - container.startedAtNs, 0);
}

export function containerStats(container: ContainerRecord, atNs: number): cri.ContainerStats {
  const limitBytes = memoryLimitBytes(container);
  const running = container.state === 'CONTAINER_RUNNING';
  const workingSetBytes = running ? (limitBytes > 0 ? Math.round(limitBytes * MEMORY_LIMIT_SHARE) : DEFAULT_WORKING_SET_BYTES) : 0;
  return {
    attributes: {
      id: container.id,
      metadata: container.metadata,
      labels: container.config.labels,
      annotations: container.config.annotations,
    },
    cpu: { timestamp: atNs, usage_core_nano_seconds: { value: Math.round(runningNs(container, atNs) * cpuCores(container)) } },
    memory: {
      timestamp: atNs,
      working_set_bytes: { value: workingSetBytes },
      usage_bytes: { value: workingSetBytes },
      rss_bytes: { value: Math.round(workingSetBytes * 0.8) },
      ...(limitBytes > 0 ? { available_bytes: { value: Math.max(limitBytes - workingSetBytes, 0) } } : {}),
      page_faults: { value: 0 },
      major_page_faults: { value: 0 },
    },
    writable_layer: {
      timestamp: atNs,
      fs_id: { mountpoint: WRITABLE_LAYER_MOUNTPOINT },
      used_bytes: { value: WRITABLE_LAYER_BYTES },
      inodes_used: { value: WRITABLE_LAYER_INODES },
    },
  };
}

/** An exited instance as containerd 2.x lists it: who it is and its writable layer, no CPU or memory (it has no task to measure). */
function exitedContainerStats(container: ContainerRecord, atNs: number): cri.ContainerStats {
  const { attributes, writable_layer } = containerStats(container, atNs);
  return { attributes, writable_layer };
}

/** What of the sandbox stats varies between runtimes. */
export type SandboxStatsTraits = Pick<RuntimePersonality, 'statsListExitedContainers' | 'podCpuMemoryStats'>;

/** The sandbox as a whole: its containers' figures plus the pause process, and its network. */
export function podSandboxStats(
  sandbox: SandboxRecord,
  containers: ContainerRecord[],
  atNs: number,
  traits: SandboxStatsTraits,
): cri.PodSandboxStats {
  const containerFigures = containers.filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => containerStats(c, atNs));
  const exitedInstances = traits.statsListExitedContainers
    ? containers.filter((c) => c.state === 'CONTAINER_EXITED').map((c) => exitedContainerStats(c, atNs))
    : [];
  const lifeSeconds = Math.max(atNs - sandbox.createdAtNs, 0) / NS_PER_SECOND;
  const cpuNs = containerFigures.reduce(
    (sum, figures) => sum + Number(figures.cpu?.usage_core_nano_seconds?.value ?? 0),
    Math.round(lifeSeconds * PAUSE_CPU_CORES * NS_PER_SECOND),
  );
  const workingSetBytes = containerFigures.reduce(
    (sum, figures) => sum + Number(figures.memory?.working_set_bytes?.value ?? 0),
    PAUSE_WORKING_SET_BYTES,
  );
  const networkBytes = sandbox.hostNetwork ? 0 : Math.round(lifeSeconds * NETWORK_BYTES_PER_SECOND);
  return {
    attributes: { id: sandbox.id, metadata: sandbox.metadata, labels: sandbox.config.labels, annotations: sandbox.config.annotations },
    linux: {
      ...(traits.podCpuMemoryStats
        ? {
            cpu: { timestamp: atNs, usage_core_nano_seconds: { value: cpuNs } },
            memory: { timestamp: atNs, working_set_bytes: { value: workingSetBytes }, usage_bytes: { value: workingSetBytes } },
          }
        : {}),
      network: {
        timestamp: atNs,
        default_interface: {
          name: 'eth0',
          rx_bytes: { value: networkBytes },
          rx_errors: { value: 0 },
          tx_bytes: { value: networkBytes },
          tx_errors: { value: 0 },
        },
        interfaces: [],
      },
      process: { timestamp: atNs, process_count: { value: containerFigures.length + 1 } },
      containers: [...containerFigures, ...exitedInstances],
    },
  };
}

function containerStatsMatch(filter: cri.ContainerStatsFilter__Output | null, container: ContainerRecord): boolean {
  if (!filter) return true;
  if (filter.id && !container.id.startsWith(filter.id)) return false;
  if (filter.pod_sandbox_id && !container.sandboxId.startsWith(filter.pod_sandbox_id)) return false;
  return labelsMatch(filter.label_selector, container.config.labels);
}

export async function containerStatsCall(ctx: SimContext, req: cri.ContainerStatsRequest__Output): Promise<cri.ContainerStatsResponse> {
  await ctx.latency.wait('ContainerStats');
  return { stats: containerStats(ctx.store.getContainer(req.container_id), nowNs()) };
}

/** Running containers only, as containerd reports stats for containers with a task. */
export async function listContainerStats(
  ctx: SimContext,
  req: cri.ListContainerStatsRequest__Output,
): Promise<cri.ListContainerStatsResponse> {
  const atNs = nowNs();
  const selected = [...ctx.store.containers.values()].filter((c) => c.state === 'CONTAINER_RUNNING' && containerStatsMatch(req.filter, c));
  await ctx.latency.wait('ListContainerStats', selected.length);
  return { stats: selected.map((container) => containerStats(container, atNs)) };
}

export async function podSandboxStatsCall(ctx: SimContext, req: cri.PodSandboxStatsRequest__Output): Promise<cri.PodSandboxStatsResponse> {
  await ctx.latency.wait('PodSandboxStats');
  const sandbox = ctx.store.getSandbox(req.pod_sandbox_id);
  return { stats: podSandboxStats(sandbox, ctx.store.containersOf(sandbox.id), nowNs(), ctx.personality) };
}

/** Ready sandboxes only: a stopped sandbox has no cgroup left to read. */
export async function listPodSandboxStats(
  ctx: SimContext,
  req: cri.ListPodSandboxStatsRequest__Output,
): Promise<cri.ListPodSandboxStatsResponse> {
  const atNs = nowNs();
  const filter = req.filter;
  const selected = [...ctx.store.sandboxes.values()].filter(
    (s) => s.state === 'SANDBOX_READY' && (!filter?.id || s.id.startsWith(filter.id)) && labelsMatch(filter?.label_selector, s.config.labels),
  );
  // One pass over the containers, not one per sandbox: 500 pods stay cheap.
  const containersBySandbox = new Map<string, ContainerRecord[]>();
  for (const container of ctx.store.containers.values()) {
    const list = containersBySandbox.get(container.sandboxId);
    if (list) list.push(container);
    else containersBySandbox.set(container.sandboxId, [container]);
  }
  await ctx.latency.wait('ListPodSandboxStats', selected.length);
  return { stats: selected.map((sandbox) => podSandboxStats(sandbox, containersBySandbox.get(sandbox.id) ?? [], atNs, ctx.personality)) };
}
