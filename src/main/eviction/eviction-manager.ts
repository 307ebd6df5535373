// The eviction manager, as upstream's managerImpl: every monitoring period it reads
// the node's figures (the Summary /stats/summary serves), decides which thresholds
// are met and which pressure conditions the node shows, and when a threshold has
// been met for its grace period it first reclaims at node level (image GC for the
// disk signals) and then evicts one pod, the first in the ranking for the starved
// resource, never a critical one. It also answers admission under pressure:
// nothing but critical pods under disk or PID pressure, no BestEffort pod under
// memory pressure unless it tolerates the memory-pressure taint.
import type { Logger } from 'pino';
import { effectiveRequests, isCriticalPod, podQOSClass, resourceAmount } from '../../shared/qos.js';
import { parseBytes } from '../../shared/quantity.js';
import type { Pod } from '../../shared/types.js';
import { formatResource } from '../nodestatus/quantity-format.js';
import type { PodStats, Summary } from '../stats/summary-types.js';
import { observeSignals, type Observations } from './observations.js';
import { rankForEviction } from './pod-ranking.js';
import { PressureState, type PressureCondition } from './pressure-state.js';
import { resourceOf, thresholdQuantity, type EvictionSignal, type Threshold } from './thresholds.js';

/** Upstream's evictionMonitoringPeriod. */
export const EVICTION_MONITORING_PERIOD_MS = 10_000;
/** Upstream's immediateEvictionGracePeriodSeconds: what a hard threshold gives a pod. */
export const HARD_EVICTION_GRACE_PERIOD_SECONDS = 1;
/** The default terminationGracePeriodSeconds of a pod spec. */
const DEFAULT_TERMINATION_GRACE_SECONDS = 30;
export const EVICTED_REASON = 'Evicted';
const MEMORY_PRESSURE_TAINT = 'node.kubernetes.io/memory-pressure';
/** Memory first, as upstream's byEvictionPriority; then disk, then PIDs. */
const RECLAIM_ORDER: readonly EvictionSignal[] = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'];

export interface EvictionManagerOptions {
  thresholds: Threshold[];
  transitionPeriodMs: number;
  /** evictionMaxPodGracePeriod: the most a soft eviction gives a pod; 0 leaves the pod's own. */
  maxPodGracePeriodSeconds: number;
  monitoringPeriodMs: number;
  /** The node's figures alone: read every period. */
  nodeSummary: () => Promise<Summary>;
  /** The node's and every pod's figures: read only when a pod has to be picked. */
  summary: () => Promise<Summary>;
  /** Pods admitted and not yet terminating, that eviction may pick from. */
  activePods: () => Pod[];
  evict: (pod: Pod, gracePeriodSeconds: number, message: string) => void;
  /** Node-level reclaim for the disk signals (image garbage collection). */
  reclaimDisk?: () => Promise<void>;
  logger: Logger;
}

export interface Rejection {
  reason: string;
  message: string;
}

export class EvictionManager {
  private readonly state: PressureState;
  private current = new Set<PressureCondition>();
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(private readonly options: EvictionManagerOptions) {
    this.state = new PressureState(options.transitionPeriodMs);
  }

  start(): void {
    if (this.options.thresholds.length === 0) return;
    this.timer = setInterval(() => void this.synchronize(), this.options.monitoringPeriodMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The pressure conditions the node shows now. */
  conditions(): ReadonlySet<PressureCondition> {
    return this.current;
  }

  /** Upstream's eviction admit handler; undefined admits. */
  admit(pod: Pod): Rejection | undefined {
    if (this.current.size === 0 || isCriticalPod(pod)) return undefined;
    const onlyMemory = this.current.size === 1 && this.current.has('MemoryPressure');
    if (onlyMemory && podQOSClass(pod) !== 'BestEffort') return undefined;
    if (onlyMemory && toleratesMemoryPressure(pod)) return undefined;
    return { reason: EVICTED_REASON, message: `The node had condition: [${[...this.current].join(' ')}]. ` };
  }

  /** One pass; resolves with the pod it evicted, if any. */
  async synchronize(nowMs = Date.now()): Promise<Pod | undefined> {
    if (this.running) return undefined;
    this.running = true;
    try {
      return await this.pass(nowMs);
    } catch (err) {
      this.options.logger.warn({ err: (err as Error).message }, 'Eviction manager: failed to read the node\'s figures; no action this round');
      return undefined;
    } finally {
      this.running = false;
    }
  }

  private async pass(nowMs: number): Promise<Pod | undefined> {
    const { options } = this;
    let observations = observeSignals(await options.nodeSummary());
    const { conditions, actionable } = this.state.update(options.thresholds, observations, nowMs);
    this.noteConditions(conditions);
    if (actionable.length === 0) return undefined;
    const threshold = [...actionable].sort((a, b) => RECLAIM_ORDER.indexOf(a.signal) - RECLAIM_ORDER.indexOf(b.signal))[0]!;
    options.logger.warn({ signal: threshold.signal, observed: observations[threshold.signal] }, 'Eviction manager: attempting to reclaim');
    if (threshold.signal !== 'memory.available' && threshold.signal !== 'pid.available' && options.reclaimDisk) {
      await options.reclaimDisk();
      observations = observeSignals(await options.nodeSummary());
      if (!stillMet(threshold, observations)) {
        options.logger.info({ signal: threshold.signal }, 'Eviction manager: able to reduce resource pressure without evicting pods');
        return undefined;
      }
    }
    const summary = await options.summary();
    observations = observeSignals(summary);
    const statsByUid = new Map(summary.pods.map((stats) => [stats.podRef.uid, stats]));
    const candidates = options.activePods().filter((pod) => !isCriticalPod(pod)).map((pod) => ({ pod, stats: statsByUid.get(pod.metadata?.uid ?? '') }));
    const victim = rankForEviction(candidates, threshold.signal)[0];
    if (!victim) {
      options.logger.error({ signal: threshold.signal }, 'Eviction manager: unable to evict any pods from the node');
      return undefined;
    }
    const message = evictionMessage(threshold, observations, victim.pod, victim.stats);
    options.evict(victim.pod, this.gracePeriodSeconds(threshold, victim.pod), message);
    options.logger.info({ pod: `${victim.pod.metadata?.namespace}/${victim.pod.metadata?.name}`, message }, 'Eviction manager: pod is evicted successfully');
    return victim.pod;
  }

  private gracePeriodSeconds(threshold: Threshold, pod: Pod): number {
    if (threshold.hard) return HARD_EVICTION_GRACE_PERIOD_SECONDS;
    const own = pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_SECONDS;
    const max = this.options.maxPodGracePeriodSeconds;
    return max > 0 ? Math.min(own, max) : own;
  }

  private noteConditions(conditions: Set<PressureCondition>): void {
    for (const condition of conditions) if (!this.current.has(condition)) this.options.logger.warn({ condition }, 'Eviction manager: node has a pressure condition');
    for (const condition of this.current) if (!conditions.has(condition)) this.options.logger.info({ condition }, 'Eviction manager: pressure condition cleared');
    this.current = conditions;
  }
}

function stillMet(threshold: Threshold, observations: Observations): boolean {
  const observed = observations[threshold.signal];
  if (!observed) return false;
  const minReclaim = threshold.minReclaim ? thresholdQuantity(threshold.minReclaim, observed.capacity) : 0;
  return observed.available < thresholdQuantity(threshold.value, observed.capacity) + minReclaim;
}

function toleratesMemoryPressure(pod: Pod): boolean {
  return (pod.spec?.tolerations ?? []).some(
    (t) => (t.key === MEMORY_PRESSURE_TAINT || (t.key === undefined && t.operator === 'Exists')) && (t.effect === undefined || t.effect === 'NoSchedule'),
  );
}

/** Upstream's evictionMessage: the threshold and what was left, then each container using more than it asked for. */
export function evictionMessage(threshold: Threshold, observations: Observations, pod: Pod, stats: PodStats | undefined): string {
  const resource = resourceOf(threshold.signal);
  const observed = observations[threshold.signal];
  const quantity = observed ? thresholdQuantity(threshold.value, observed.capacity) : 0;
  let message = `The node was low on resource: ${resource}. Threshold quantity: ${formatResource(resource, quantity)}, available: ${formatResource(resource, observed?.available ?? 0)}. `;
  if (resource !== 'memory' && resource !== 'ephemeral-storage') return message;
  for (const container of pod.spec?.containers ?? []) {
    const containerStats = stats?.containers.find((c) => c.name === container.name);
    const usage = resource === 'memory' ? containerStats?.memory?.workingSetBytes : (containerStats?.rootfs?.usedBytes ?? 0) + (containerStats?.logs?.usedBytes ?? 0);
    if (usage === undefined) continue;
    const requests = effectiveRequests(container);
    const storageRequest = requests['ephemeral-storage'];
    const request = resource === 'memory' ? resourceAmount(requests, 'memory') : storageRequest === undefined ? 0 : parseBytes(storageRequest);
    if (usage > request) {
      message += `Container ${container.name} was using ${formatResource(resource, usage)}, request is ${formatResource(resource, request)}, has larger consumption of ${resource}. `;
    }
  }
  return message;
}

