// Which dead containers and sandboxes the node-wide container garbage collector
// removes, as upstream's containerGC (kuberuntime_gc.go, under the GCPolicy of
// container_gc.go) decides it. Pure: it takes what the runtime listed, each pod's
// standing with the kubelet, the policy and the time, so it is tested with plain
// records alone.
//
// Upstream's order: a container is evictable when it is not running and was created
// at least MinAge ago; evictable containers are grouped into evict units (pod UID,
// container name). A pod whose content may go (removed and terminated, evicted, or
// unknown once every source is ready) loses every evictable container. Then each
// unit keeps its MaxPerPodContainer newest; then, when MaxContainers >= 0 and the
// total is still over it, each unit keeps an equal share (MaxContainers / units, at
// least 1), and last the oldest across all units go until the total fits. Sandboxes
// go when they are not ready, hold no container, and are not the pod's newest (every
// such sandbox of a pod whose content may go).
//
// One shardlet rule on top: a live pod's CREATED container that is the newest
// instance of its name is not evictable. Upstream counts it as dead, but it is
// either between CreateContainer and StartContainer in the pod's sync right now, or
// left by a kubelet that died there and about to be replaced (the pod's own GC
// removes it then); removing it would fail that sync's StartContainer.

/** Upstream's GCPolicy. */
export interface ContainerGcPolicy {
  /** Containers created less than this long ago are never evicted (MinAge, --minimum-container-ttl-duration). */
  minAgeMs: number;
  /** Dead instances kept per (pod, container name); negative keeps all (MaxPerPodContainer). */
  maxPerPodContainer: number;
  /** Dead containers kept on the node in total; negative is no limit (MaxContainers, --maximum-dead-containers). */
  maxContainers: number;
}

export type GcContainerState = 'created' | 'running' | 'exited' | 'unknown';

/** A container as ListContainers shows it, reduced to what the choice needs. */
export interface GcContainer {
  id: string;
  podUid: string;
  /** The container's name in its pod (io.kubernetes.container.name). */
  name: string;
  sandboxId: string;
  state: GcContainerState;
  createdAtMs: number;
}

/** A sandbox as ListPodSandbox shows it. */
export interface GcSandbox {
  id: string;
  podUid: string;
  ready: boolean;
  createdAtMs: number;
}

/**
 * A pod's standing with the kubelet: 'gone' is upstream's ShouldPodContentBeRemoved
 * (no source wants it and it terminated, it was evicted, or the kubelet does not
 * know it once every source is ready); 'terminated' is ShouldPodRuntimeBeRemoved
 * short of that (still wanted, will not run again); 'live' is everything else.
 */
export type PodGcState = 'live' | 'terminated' | 'gone';

export type ContainerGcReason = 'pod content removable' | 'MaxPerPodContainer' | 'MaxContainers share' | 'MaxContainers oldest';

export interface ContainerGcInput {
  containers: readonly GcContainer[];
  sandboxes: readonly GcSandbox[];
  policy: ContainerGcPolicy;
  podState: (podUid: string) => PodGcState;
  /** Upstream's DeleteAllUnusedContainers (disk pressure): terminated pods' containers go too. */
  evictNonDeletedPods?: boolean;
  nowMs: number;
}

export interface ContainerGcPlan {
  /** Containers to remove; an 'unknown' one is stopped first, as upstream kills it before removal. */
  containers: Array<{ container: GcContainer; reason: ContainerGcReason }>;
  /** Sandboxes to remove, once the containers above are gone. */
  sandboxIds: string[];
}

type Removal = ContainerGcPlan['containers'][number];

/** Upstream's containerGC.GarbageCollect, less the log directories: what to remove now. */
export function planContainerGc(input: ContainerGcInput): ContainerGcPlan {
  const removals: Removal[] = [];
  const remove = (containers: readonly GcContainer[], reason: ContainerGcReason) => {
    for (const container of containers) removals.push({ container, reason });
  };
  const units = evictUnits(input);
  for (const [key, unit] of units) {
    if (contentRemovable(input, unit[0]!.podUid)) {
      remove(unit, 'pod content removable');
      units.delete(key);
    }
  }
  const { maxPerPodContainer, maxContainers } = input.policy;
  if (maxPerPodContainer >= 0) keepNewestPerUnit(units, maxPerPodContainer, (gone) => remove(gone, 'MaxPerPodContainer'));
  if (maxContainers >= 0 && countContainers(units) > maxContainers) {
    // Upstream counts every unit here, also one MaxPerPodContainer = 0 emptied.
    const share = Math.max(1, Math.floor(maxContainers / units.size));
    keepNewestPerUnit(units, share, (gone) => remove(gone, 'MaxContainers share'));
    const left = newestFirst([...units.values()].flat());
    if (left.length > maxContainers) remove(left.slice(maxContainers), 'MaxContainers oldest');
  }
  const removedIds = new Set(removals.map((removal) => removal.container.id));
  return { containers: removals, sandboxIds: evictableSandboxes(input, removedIds) };
}

/** Upstream's evictableContainers, grouped by evict unit, each unit newest first. */
function evictUnits(input: ContainerGcInput): Map<string, GcContainer[]> {
  const newestCutoffMs = input.nowMs - input.policy.minAgeMs;
  const newestByUnit = newestInstanceByUnit(input.containers);
  const units = new Map<string, GcContainer[]>();
  for (const container of input.containers) {
    if (container.state === 'running' || container.createdAtMs > newestCutoffMs) continue;
    const key = unitKey(container);
    if (container.state === 'created' && newestByUnit.get(key) === container && input.podState(container.podUid) === 'live') continue;
    const unit = units.get(key) ?? [];
    unit.push(container);
    units.set(key, unit);
  }
  for (const unit of units.values()) unit.sort(byNewest);
  return units;
}

/** The newest listed instance, in any state, of each (pod, container name). */
function newestInstanceByUnit(containers: readonly GcContainer[]): Map<string, GcContainer> {
  const newest = new Map<string, GcContainer>();
  for (const container of containers) {
    const key = unitKey(container);
    const current = newest.get(key);
    if (!current || byNewest(container, current) < 0) newest.set(key, container);
  }
  return newest;
}

function contentRemovable(input: ContainerGcInput, podUid: string): boolean {
  const state = input.podState(podUid);
  return state === 'gone' || (input.evictNonDeletedPods === true && state === 'terminated');
}

/** Upstream's enforceMaxContainersPerEvictUnit: each unit keeps its `kept` newest. */
function keepNewestPerUnit(units: Map<string, GcContainer[]>, kept: number, onRemoved: (gone: GcContainer[]) => void): void {
  for (const [key, unit] of units) {
    if (unit.length <= kept) continue;
    onRemoved(unit.slice(kept));
    units.set(key, unit.slice(0, kept));
  }
}

/**
 * Upstream's evictSandboxes: a sandbox is active while it is ready or holds a
 * container (counting those this pass does not remove); a pod keeps its newest
 * sandbox unless its content may go, and loses every other inactive one.
 */
function evictableSandboxes(input: ContainerGcInput, removedIds: ReadonlySet<string>): string[] {
  const sandboxesInUse = new Set(input.containers.filter((c) => !removedIds.has(c.id)).map((c) => c.sandboxId));
  const sandboxesByPod = new Map<string, GcSandbox[]>();
  for (const sandbox of input.sandboxes) {
    const sandboxes = sandboxesByPod.get(sandbox.podUid) ?? [];
    sandboxes.push(sandbox);
    sandboxesByPod.set(sandbox.podUid, sandboxes);
  }
  const evictable: string[] = [];
  for (const [podUid, sandboxes] of sandboxesByPod) {
    const kept = contentRemovable(input, podUid) ? 0 : 1;
    for (const sandbox of newestFirst(sandboxes).slice(kept)) {
      if (!sandbox.ready && !sandboxesInUse.has(sandbox.id)) evictable.push(sandbox.id);
    }
  }
  return evictable;
}

function countContainers(units: ReadonlyMap<string, readonly GcContainer[]>): number {
  let total = 0;
  for (const unit of units.values()) total += unit.length;
  return total;
}

function unitKey(container: GcContainer): string {
  return `${container.podUid}/${container.name}`;
}

/** Newest first; equal creation times fall back to the ID so the choice is the same every time. */
function byNewest(a: { id: string; createdAtMs: number }, b: { id: string; createdAtMs: number }): number {
  return b.createdAtMs - a.createdAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function newestFirst<T extends { id: string; createdAtMs: number }>(items: readonly T[]): T[] {
  return [...items].sort(byNewest);
}
