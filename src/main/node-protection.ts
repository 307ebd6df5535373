// What protects a dense node, wired together: the pod cgroup hierarchy
// (cgroupsPerQOS), container and image garbage collection and the eviction manager,
// with the record of the pods it evicted. The kubelet calls it at three points: before the
// shards start (they need the cgroup layout), once the sources run (the periodic
// loops), and per pod (admission, the status overlay of an evicted pod, forgetting).
import { cpus, totalmem } from 'node:os';
import type { Logger } from 'pino';
import type { CriClient } from '../shared/cri/client.js';
import type { PodGcState } from '../shared/kuberuntime/container-gc-policy.js';
import type { PodEventRecord, PodCgroupSettings } from '../shared/shard-protocol.js';
import type { Pod, PodStatus } from '../shared/types.js';
import { QosCgroups, QOS_UPDATE_PERIOD_MS } from './cm/qos-cgroups.js';
import { EvictedPods } from './eviction/evicted-pods.js';
import { EvictionManager, type Rejection } from './eviction/eviction-manager.js';
import type { PressureCondition } from './eviction/pressure-state.js';
import { parseThresholds } from './eviction/thresholds.js';
import { ImageGcManager } from './images/image-gc-manager.js';
import { ContainerGcManager } from './kuberuntime/container-gc-manager.js';
import type { KubeletOptions } from './options/kubelet-options.js';
import type { SummaryProvider } from './stats/summary-provider.js';

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
  /** Terminates a pod with this grace period (the pod worker's kill). */
  kill(pod: Pod, gracePeriodSeconds: number): void;
  onPodEvent(pod: Pod, event: PodEventRecord): void;
  onNodeEvent(type: 'Warning', reason: string, message: string): void;
}

export class NodeProtection {
  private readonly qosCgroups: QosCgroups;
  private readonly evicted = new EvictedPods();
  private imageGc?: ImageGcManager;
  private containerGc?: ContainerGcManager;
  private eviction?: EvictionManager;
  private qosTimer?: NodeJS.Timeout;

  constructor(
    private readonly options: KubeletOptions,
    private readonly logger: Logger,
  ) {
    this.qosCgroups = new QosCgroups(options, logger);
  }

  /** kubepods and its QoS tiers; what the shards need to make each pod's cgroup (undefined with cgroupsPerQOS off). */
  prepareCgroups(): Promise<PodCgroupSettings | undefined> {
    return this.qosCgroups.start({ numCores: cpus().length, memoryCapacityBytes: totalmem() });
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
      logger,
      onNodeEvent: host.onNodeEvent,
    });
    this.containerGc = containerGc;
    containerGc.start();
    const imageGc = new ImageGcManager({ cri: () => host.cri(), settings: options.imageGC, periodMs: options.imageGC.periodMs, logger, onNodeEvent: host.onNodeEvent });
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
        this.evicted.record(pod.metadata?.uid ?? '', message);
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
  }

  stop(): void {
    clearInterval(this.qosTimer);
    this.containerGc?.stop();
    this.imageGc?.stop();
    this.eviction?.stop();
  }

  /** The eviction manager's admission check under node pressure; undefined admits. */
  admit(pod: Pod): Rejection | undefined {
    return this.eviction?.admit(pod);
  }

  /** MemoryPressure, DiskPressure, PIDPressure as the node reports them now. */
  conditions(): ReadonlySet<PressureCondition> {
    return this.eviction?.conditions() ?? new Set();
  }

  /** An evicted pod's status says so (Failed, Evicted); any other pod's is as the shard computed it. */
  statusOf(uid: string, status: PodStatus): PodStatus {
    return this.evicted.overlay(uid, status);
  }

  forget(uid: string): void {
    this.evicted.forget(uid);
  }
}
