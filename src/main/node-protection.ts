// What protects a dense node, wired together: the pod cgroup hierarchy
// (cgroupsPerQOS), container and image garbage collection, the eviction manager with
// the record of the pods it evicted, and graceful node shutdown with the pods it
// killed. The kubelet calls it at three points: before the shards start (they need
// the cgroup layout), once the sources run (the periodic loops, the shutdown watch),
// and per pod (admission, the status overlay of an evicted or shut-down pod, forgetting).
import { cpus, totalmem } from 'node:os';
import type { Logger } from 'pino';
import type { CriClient } from '../shared/cri/client.js';
import type { ImageRemovals } from '../shared/images/image-removals.js';
import type { PodGcState } from '../shared/kuberuntime/container-gc-policy.js';
import type { PodEventRecord, PodCgroupSettings } from '../shared/shard-protocol.js';
import type { Pod, PodStatus } from '../shared/types.js';
import { OrphanedPodCgroups } from './cm/orphaned-pod-cgroups.js';
import { QosCgroups, QOS_UPDATE_PERIOD_MS } from './cm/qos-cgroups.js';
import { EVICTED_REASON, EvictionManager, type Rejection } from './eviction/eviction-manager.js';
import type { PressureCondition } from './eviction/pressure-state.js';
import { parseThresholds } from './eviction/thresholds.js';
import { ImageGcManager } from './images/image-gc-manager.js';
import { ContainerGcManager } from './kuberuntime/container-gc-manager.js';
import type { KubeletOptions } from './options/kubelet-options.js';
import { KubeletTerminations } from './status/kubelet-terminations.js';
import type { SummaryProvider } from './stats/summary-provider.js';
import { SystemdLogindBus } from './nodeshutdown/logind-bus.js';
import { NodeShutdownManager } from './nodeshutdown/nodeshutdown-manager.js';
import { shutdownPeriodsByPriority } from './nodeshutdown/shutdown-groups.js';

export interface NodeProtectionHost {
  /** The kubelet API's CRI client, once the runtime answered. */
  cri(): CriClient | undefined;
  summary: SummaryProvider;
  /** Every pod the kubelet holds (the QoS tiers' shares follow them). */
  pods(): Pod[];
  /** Pods admitted and still running, that eviction may pick from. */
  activePods(): Pod[];
  /** Whether a pod's dead containers may all go (see kuberuntime/pod-gc-state.ts); eviction is added here. */
  podGcState(uid: string): PodGcState;
  /** Pods admitted and not yet terminated (syncing or terminating), that a node shutdown stops. */
  unfinishedPods(): Pod[];
  /** Terminates a pod with this grace period (the pod worker's kill). */
  kill(pod: Pod, gracePeriodSeconds: number): void;
  /** Sends the Node's status now (cluster mode). */
  syncNodeStatus(): void;
  /** Shows the pod's status again through statusOf (a verdict was just recorded for it). */
  refreshStatus(pod: Pod): void;
  onPodEvent(pod: Pod, event: PodEventRecord): void;
  onNodeEvent(type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export class NodeProtection {
  private readonly qosCgroups: QosCgroups;
  /** Pods the eviction manager evicted, and their verdict (status/kubelet-terminations.ts). */
  private readonly evicted = new KubeletTerminations();
  private imageGc?: ImageGcManager;
  private containerGc?: ContainerGcManager;
  private eviction?: EvictionManager;
  private qosTimer?: NodeJS.Timeout;
  private orphanedPodCgroups?: OrphanedPodCgroups;
  /** Graceful node shutdown; undefined when off (the gate, or no shutdownGracePeriod). */
  private readonly nodeShutdown?: NodeShutdownManager;

  constructor(
    private readonly options: KubeletOptions,
    private readonly logger: Logger,
    private readonly imageRemovals?: ImageRemovals,
  ) {
    this.qosCgroups = new QosCgroups(options, logger);
    const periods = shutdownPeriodsByPriority(options.nodeShutdown);
    if (periods.length > 0) {
      this.nodeShutdown = new NodeShutdownManager({ periods, bus: new SystemdLogindBus(options.nodeShutdown.logindConfDir), logger });
    }
  }

  /** kubepods and its QoS tiers; what the shards need to make each pod's cgroup (undefined with cgroupsPerQOS off). */
  async prepareCgroups(): Promise<PodCgroupSettings | undefined> {
    const settings = await this.qosCgroups.start({ numCores: cpus().length, memoryCapacityBytes: totalmem() });
    if (settings) this.orphanedPodCgroups = new OrphanedPodCgroups(settings, this.logger);
    return settings;
  }

  /** Housekeeping: the cgroups of pods the kubelet does not know go (a no-op without cgroupsPerQOS). */
  cleanupOrphanedPodCgroups(isKnown: (uid: string) => boolean): void {
    void this.orphanedPodCgroups?.cleanup(isKnown).catch((err: Error) => this.logger.warn({ err: err.message }, 'Orphaned pod cgroup cleanup failed'));
  }

  /** The periodic loops: QoS tier shares, container and image GC, the eviction manager. */
  start(host: NodeProtectionHost): void {
    const { options, logger } = this;
    void this.qosCgroups.update(host.pods());
    this.qosTimer = setInterval(() => void this.qosCgroups.update(host.pods()), QOS_UPDATE_PERIOD_MS);
    const { periodMs, ...policy } = options.containerGC;
    const containerGc = new ContainerGcManager({
      cri: () => host.cri(),
      policy,
      periodMs,
      // As upstream's ShouldPodContentBeRemoved: an evicted pod's dead containers go at once.
      podState: (uid) => (this.evicted.has(uid) ? 'gone' : host.podGcState(uid)),
      podLogsDir: options.podLogsDir,
      logger,
      onNodeEvent: host.onNodeEvent,
    });
    this.containerGc = containerGc;
    containerGc.start();
    const imageGc = new ImageGcManager({
      cri: () => host.cri(),
      settings: options.imageGC,
      periodMs: options.imageGC.periodMs,
      logger,
      onNodeEvent: host.onNodeEvent,
      removals: this.imageRemovals,
    });
    this.imageGc = imageGc;
    imageGc.start();
    this.eviction = new EvictionManager({
      thresholds: parseThresholds({
        evictionHard: options.evictionHard,
        evictionSoft: options.eviction.soft,
        evictionSoftGracePeriodMs: options.eviction.softGracePeriodMs,
        evictionMinimumReclaim: options.eviction.minimumReclaim,
      }),
      transitionPeriodMs: options.eviction.pressureTransitionPeriodMs,
      maxPodGracePeriodSeconds: options.eviction.maxPodGracePeriodSeconds,
      monitoringPeriodMs: options.eviction.monitoringPeriodMs,
      nodeSummary: () => host.summary.nodeSummary(),
      summary: () => host.summary.summary(false),
      activePods: () => host.activePods().filter((pod) => !this.evicted.has(pod.metadata?.uid ?? '')),
      evict: (pod, gracePeriodSeconds, message) => {
        this.evicted.record(pod.metadata?.uid ?? '', { reason: EVICTED_REASON, message, keepSucceeded: false });
        host.onPodEvent(pod, { type: 'Warning', reason: 'Evicted', message, timestampMs: Date.now() });
        host.kill(pod, gracePeriodSeconds);
      },
      // As upstream's disk reclaim: every unused container first (it frees their images too), then images.
      reclaimDisk: async () => {
        await containerGc.collect({ evictNonDeletedPods: true });
        await imageGc.collect();
      },
      logger,
    });
    this.eviction.start();
    void this.nodeShutdown?.start({
      activePods: () => host.unfinishedPods(),
      kill: (pod, gracePeriodSeconds) => host.kill(pod, gracePeriodSeconds),
      syncNodeStatus: () => host.syncNodeStatus(),
      refreshStatus: (pod) => host.refreshStatus(pod),
      onNodeEvent: (type, reason, message) => host.onNodeEvent(type, reason, message),
    });
  }

  /** Ends the loops; the shutdown inhibitor lock and watch go with their processes. */
  async stop(): Promise<void> {
    clearInterval(this.qosTimer);
    this.containerGc?.stop();
    this.imageGc?.stop();
    this.eviction?.stop();
    await this.nodeShutdown?.stop();
  }

  /** The eviction manager's admission check under node pressure; undefined admits. */
  admit(pod: Pod): Rejection | undefined {
    return this.eviction?.admit(pod);
  }

  /** The node shutdown manager's admission check, which upstream runs after the predicates; undefined admits. */
  admitDuringShutdown(): Rejection | undefined {
    return this.nodeShutdown?.admit();
  }

  /** The node is shutting down: Ready is False. */
  nodeShuttingDown(): boolean {
    return this.nodeShutdown?.shuttingDown() ?? false;
  }

  /** The pod worker finished with a pod (a node shutdown may be waiting for it). */
  podFinished(uid: string): void {
    this.nodeShutdown?.podFinished(uid);
  }

  /** A node shutdown killed the pod: it is not finished for good, and starts again after the reboot, as upstream's. */
  killedForShutdown(uid: string): boolean {
    return this.nodeShutdown?.killedForShutdown(uid) ?? false;
  }

  /** MemoryPressure, DiskPressure, PIDPressure as the node reports them now. */
  conditions(): ReadonlySet<PressureCondition> {
    return this.eviction?.conditions() ?? new Set();
  }

  /** An evicted or shut-down pod's status says so (Failed, Evicted or Terminated); any other pod's is as the shard computed it. */
  statusOf(uid: string, status: PodStatus): PodStatus {
    const afterEviction = this.evicted.overlay(uid, status);
    return this.nodeShutdown ? this.nodeShutdown.statusOf(uid, afterEviction) : afterEviction;
  }

  forget(uid: string): void {
    this.evicted.forget(uid);
    this.nodeShutdown?.forget(uid);
  }
}
