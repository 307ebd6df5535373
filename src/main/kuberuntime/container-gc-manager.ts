// The node-wide container garbage collector, as upstream's realContainerGC run from
// the kubelet's StartGarbageCollection: every ContainerGCPeriod (1 minute;
// --container-gc-period here) it lists the dead containers and sandboxes and
// removes what container-gc-policy.ts picks. Each pod's own syncs already keep its
// dead instances to --maximum-dead-containers-per-container; this pass adds what
// only a node-wide view can do: --maximum-dead-containers across all pods, and the
// leftovers of pods that are gone.
//
// It runs on the main thread over the kubelet API's CRI channel, and reads as
// little as it can: only non-running containers (three ListContainers by state;
// a running one is never evictable) and only sandboxes that are not ready (a
// ready one is always in use). Not seeing the rest only ever keeps more: a live
// pod's newest not-ready sandbox stays even when a ready one is newer, and a
// created container replaced by a running one stays; the pod's own sync removes
// both. The pass does not wait for pods' syncs in flight: the policy keeps a live
// pod's newest created container (the one race that would fail a sync), and any
// other removal a sync did not expect shows to it as a NotFound it tolerates.
import type { Logger } from 'pino';
import type { ContainerLean } from '../../shared/cri/types.js';
import type { CriClient } from '../../shared/cri/client.js';
import { ContainerState, PodSandboxState } from '../../shared/cri/types.js';
import { ErrorCodes } from '../../shared/errors.js';
import { EventReasons } from '../../shared/events/event-types.js';
import {
  planContainerGc,
  type ContainerGcPlan,
  type ContainerGcPolicy,
  type GcContainer,
  type GcContainerState,
  type GcSandbox,
  type PodGcState,
} from '../../shared/kuberuntime/container-gc-policy.js';
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../../shared/labels.js';
import { removeDeadContainer, removeEmptySandbox } from './dead-container-removal.js';
import { evictPodLogsDirectories } from './pod-logs-eviction.js';

const NS_PER_MS = 1_000_000;
/** The container states the collector may remove, as CRI names them. */
const DEAD_STATES: ReadonlyArray<[(typeof ContainerState)[keyof typeof ContainerState], GcContainerState]> = [
  [ContainerState.CONTAINER_EXITED, 'exited'],
  [ContainerState.CONTAINER_CREATED, 'created'],
  [ContainerState.CONTAINER_UNKNOWN, 'unknown'],
];

export interface ContainerGcManagerOptions {
  /** The kubelet API's CRI client, once the runtime answered. */
  cri: () => CriClient | undefined;
  policy: ContainerGcPolicy;
  periodMs: number;
  /** What the kubelet knows of a pod (by UID) that decides whether its content may go. */
  podState: (podUid: string) => PodGcState;
  /** Where the pods' log directories are (podLogsDir): those of gone pods go too. */
  podLogsDir?: string;
  logger: Logger;
  /** A node event (cluster mode records it on the Node). */
  onNodeEvent?: (type: 'Warning', reason: string, message: string) => void;
}

export interface CollectOptions {
  /** Upstream's DeleteAllUnusedContainers (disk pressure): terminated pods' containers go too. */
  evictNonDeletedPods?: boolean;
  nowMs?: number;
}

/** What the runtime listed: the policy's view, and the CRI records the removals need. */
interface DeadObjects {
  containers: GcContainer[];
  sandboxes: GcSandbox[];
  containerById: Map<string, ContainerLean>;
}

export class ContainerGcManager {
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(private readonly options: ContainerGcManagerOptions) {}

  /** The first pass runs at once, as upstream's wait.Until does. */
  start(): void {
    void this.collect();
    this.timer = setInterval(() => void this.collect(), this.options.periodMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One pass; resolves with what it planned (tests), undefined when a pass was already running, the runtime is away or listing failed. */
  async collect(options: CollectOptions = {}): Promise<ContainerGcPlan | undefined> {
    const cri = this.options.cri();
    if (!cri || this.running) return undefined;
    this.running = true;
    try {
      return await this.collectWith(cri, options);
    } catch (err) {
      const message = (err as Error).message;
      this.options.logger.warn({ code: ErrorCodes.CONTAINER_GC_FAILED, err: message }, 'Container garbage collection failed');
      this.options.onNodeEvent?.('Warning', EventReasons.ContainerGCFailed, message);
      return undefined;
    } finally {
      this.running = false;
    }
  }

  private async collectWith(cri: CriClient, options: CollectOptions): Promise<ContainerGcPlan> {
    const { logger, policy, podState } = this.options;
    const dead = await listDeadObjects(cri);
    const plan = planContainerGc({
      containers: dead.containers,
      sandboxes: dead.sandboxes,
      policy,
      podState,
      evictNonDeletedPods: options.evictNonDeletedPods,
      nowMs: options.nowMs ?? Date.now(),
    });
    let containersRemoved = 0;
    for (const { container } of plan.containers) {
      if (await removeDeadContainer(cri, dead.containerById.get(container.id)!, logger)) containersRemoved++;
    }
    let sandboxesRemoved = 0;
    for (const sandboxId of plan.sandboxIds) {
      if (await removeEmptySandbox(cri, sandboxId, logger)) sandboxesRemoved++;
    }
    if (this.options.podLogsDir) await evictPodLogsDirectories(this.options.podLogsDir, podState, logger);
    if (plan.containers.length > 0 || plan.sandboxIds.length > 0) {
      const reasons = countBy(plan.containers.map((removal) => removal.reason));
      logger.info({ containersRemoved, sandboxesRemoved, reasons, evictNonDeletedPods: options.evictNonDeletedPods ?? false }, 'Container garbage collection removed dead containers');
    }
    return plan;
  }
}

/**
 * The kubelet's dead containers and not-ready sandboxes. Only objects carrying the
 * kubelet's pod UID label count: a runtime shared with other clients keeps theirs.
 */
async function listDeadObjects(cri: CriClient): Promise<DeadObjects> {
  const [sandboxReply, ...containerReplies] = await Promise.all([
    cri.listPodSandbox({ filter: { state: { state: PodSandboxState.SANDBOX_NOTREADY } } }),
    ...DEAD_STATES.map(([state]) => cri.listContainers({ filter: { state: { state } } })),
  ]);
  const containers: GcContainer[] = [];
  const containerById = new Map<string, ContainerLean>();
  containerReplies.forEach((reply, index) => {
    for (const item of reply.containers) {
      const podUid = item.labels?.[POD_UID_LABEL];
      if (!podUid) continue;
      containerById.set(item.id, item);
      containers.push({
        id: item.id,
        podUid,
        name: item.metadata?.name || item.labels?.[CONTAINER_NAME_LABEL] || '',
        sandboxId: item.pod_sandbox_id,
        state: DEAD_STATES[index]![1],
        createdAtMs: Number(item.created_at) / NS_PER_MS,
      });
    }
  });
  const sandboxes = sandboxReply.items.flatMap((item): GcSandbox[] => {
    const podUid = item.labels?.[POD_UID_LABEL];
    return podUid ? [{ id: item.id, podUid, ready: false, createdAtMs: Number(item.created_at) / NS_PER_MS }] : [];
  });
  return { containers, sandboxes, containerById };
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
