// Which of the runtime's container stats belong in the summary: those of running
// containers only, one per container name in a pod, as upstream's CRI stats provider
// keeps them (removeTerminatedContainers in pkg/kubelet/stats/cri_stats_provider.go).
// containerd 2.x lists a pod's exited instances in ListPodSandboxStats too, with no
// figures; passed on, they became a second `containers[]` entry of the same name and
// a duplicate series on /metrics/resource.
import { CONTAINER_NAME_LABEL, POD_UID_LABEL } from '../../shared/labels.js';
import type * as cri from '../../shared/cri/types.js';

/** The runtime's running containers (ListContainers, state RUNNING): ID → when each was created, ns. */
export type RunningContainers = ReadonlyMap<string, number>;

export function runningContainersFrom(reply: cri.ListContainersReply): RunningContainers {
  return new Map(reply.containers.map((container) => [container.id, Number(container.created_at)]));
}

function nameOf(stats: cri.ContainerStats__Output): string {
  return stats.attributes?.metadata?.name || stats.attributes?.labels[CONTAINER_NAME_LABEL] || '';
}

/** Whether the runtime gave any figure for this instance (an exited one on containerd 2.x has none). */
function hasFigures(stats: cri.ContainerStats__Output): boolean {
  return stats.cpu?.usage_core_nano_seconds != null || stats.memory?.working_set_bytes != null;
}

function sampledAtNs(stats: cri.ContainerStats__Output): number {
  return Number(stats.cpu?.timestamp ?? stats.memory?.timestamp ?? 0);
}

/**
 * The stats of live containers, one per (pod, container name). With the running set,
 * only running containers, the newest created winning; without it (ListContainers
 * failed), an instance with figures wins over one without, then the latest sample.
 */
export function liveContainerStats(stats: readonly cri.ContainerStats__Output[], running: RunningContainers | undefined): cri.ContainerStats__Output[] {
  const byPodAndName = new Map<string, cri.ContainerStats__Output>();
  const rank = (entry: cri.ContainerStats__Output): [number, number] =>
    running ? [1, running.get(entry.attributes?.id ?? '') ?? 0] : [Number(hasFigures(entry)), sampledAtNs(entry)];
  for (const entry of stats) {
    if (running && !running.has(entry.attributes?.id ?? '')) continue;
    const key = `${entry.attributes?.labels[POD_UID_LABEL] ?? ''}/${nameOf(entry)}`;
    const held = byPodAndName.get(key);
    if (held) {
      const [heldFirst, heldSecond] = rank(held);
      const [first, second] = rank(entry);
      if (first < heldFirst || (first === heldFirst && second <= heldSecond)) continue;
    }
    byPodAndName.set(key, entry);
  }
  return [...byPodAndName.values()];
}

/** How many of these instances are live: running ones, or without the running set, those with figures. */
export function liveCount(stats: readonly cri.ContainerStats__Output[], running: RunningContainers | undefined): number {
  return stats.filter((entry) => (running ? running.has(entry.attributes?.id ?? '') : hasFigures(entry))).length;
}
