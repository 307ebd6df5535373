// Which pods go down when at node shutdown, and with how long each: the pure part
// of upstream's nodeshutdown manager. The settings become a list of grace periods by
// pod priority (shutdownGracePeriodByPodPriority, or the two plain periods turned
// into one, as upstream's migrateConfig); the node's pods are grouped by it
// (groupByPriority), and the groups are shut down lowest priority first, each
// given its own period.
import { SYSTEM_CRITICAL_PRIORITY } from '../../shared/qos.js';
import type { Pod } from '../../shared/types.js';
import type { NodeShutdownOptions, ShutdownGracePeriodByPodPriority } from '../options/kubelet-options.js';

/** scheduling.DefaultPriorityWhenNoDefaultClassExists: the priority of a pod that names none. */
export const DEFAULT_POD_PRIORITY = 0;

const MS_PER_SECOND = 1_000;

/** One group of pods shut down together, and the period they all get. */
export interface PodShutdownGroup extends ShutdownGracePeriodByPodPriority {
  pods: Pod[];
}

/**
 * The grace periods by priority, sorted from the lowest priority: empty when
 * graceful node shutdown is off (the gate, or nothing configured). As upstream's
 * NewManager: shutdownGracePeriodByPodPriority when its gate is on and it is set,
 * else the two plain periods as migrateConfig turns them into two groups.
 */
export function shutdownPeriodsByPriority(options: NodeShutdownOptions): ShutdownGracePeriodByPodPriority[] {
  if (!options.enabled) return [];
  const periods =
    options.byPodPriorityEnabled && options.byPodPriority.length > 0
      ? options.byPodPriority
      : periodsFromGracePeriods(options.gracePeriodMs, options.criticalPodsGracePeriodMs);
  return [...periods].sort((a, b) => a.priority - b.priority);
}

/**
 * As upstream's migrateConfig: regular pods get shutdownGracePeriod less the
 * critical pods' share, pods at system-critical priority get that share. Nothing
 * when shutdownGracePeriod is 0 or smaller than the critical share.
 */
export function periodsFromGracePeriods(gracePeriodMs: number, criticalPodsGracePeriodMs: number): ShutdownGracePeriodByPodPriority[] {
  if (gracePeriodMs <= 0) return [];
  const regularMs = gracePeriodMs - criticalPodsGracePeriodMs;
  if (regularMs < 0) return [];
  return [
    { priority: DEFAULT_POD_PRIORITY, shutdownGracePeriodSeconds: Math.trunc(regularMs / MS_PER_SECOND) },
    { priority: SYSTEM_CRITICAL_PRIORITY, shutdownGracePeriodSeconds: Math.trunc((gracePeriodMs - regularMs) / MS_PER_SECOND) },
  ];
}

/** As upstream's periodRequested: how long logind must let the kubelet delay a shutdown, in seconds. */
export function periodRequestedSeconds(periods: readonly ShutdownGracePeriodByPodPriority[]): number {
  return periods.reduce((sum, period) => sum + period.shutdownGracePeriodSeconds, 0);
}

/**
 * As upstream's groupByPriority, over periods sorted by priority: a pod joins the
 * group with the highest priority not above its own; a pod below every group joins
 * the lowest one, above every group the highest. A pod without a priority counts
 * as priority 0.
 */
export function groupByPriority(periods: readonly ShutdownGracePeriodByPodPriority[], pods: readonly Pod[]): PodShutdownGroup[] {
  const groups: PodShutdownGroup[] = periods.map((period) => ({ ...period, pods: [] }));
  if (groups.length === 0) return groups;
  for (const pod of pods) {
    const priority = pod.spec?.priority ?? DEFAULT_POD_PRIORITY;
    // The first group at or above the pod's priority; the one below it when the pod falls between two.
    let index = groups.findIndex((group) => group.priority >= priority);
    if (index < 0) index = groups.length - 1;
    else if (index > 0 && groups[index]!.priority > priority) index--;
    groups[index]!.pods.push(pod);
  }
  return groups;
}

/** The grace period a pod gets in its group: the group's, or the pod's own when that is shorter (as upstream's killPods). */
export function podGracePeriodSeconds(pod: Pod, group: ShutdownGracePeriodByPodPriority): number {
  const own = pod.spec?.terminationGracePeriodSeconds;
  return own !== undefined && own !== null && own <= group.shutdownGracePeriodSeconds ? own : group.shutdownGracePeriodSeconds;
}
