// Stopping and removing a pod's runtime objects, as upstream's killPodWithSyncResult,
// killContainer and the removal half of the container GC. Stops are idempotent in
// the CRI, and NotFound on a stop or a removal means the work is already done.
import { isNotFound } from '../../shared/cri/client.js';
import { ErrorCodes } from '../../shared/errors.js';
import { EventMessages } from '../../shared/events/event-types.js';
import type { RuntimeContainer, RuntimePodStatus } from '../../shared/runtime-pod.js';
import { KILL_REASON_LIVENESS_PROBE, KILL_REASON_STARTUP_PROBE } from '../../shared/kuberuntime/pod-actions.js';
import type { Container, Pod } from '../../shared/types.js';
import { runPreStopHook } from '../lifecycle/pre-stop.js';
import { cleanContainerSubPaths } from '../volumes/subpath-cleanup.js';
import { removeDeadObject, reportRemovalRefused } from './dead-object-removal.js';
import { removePodLogsDirectory } from './pod-logs-cleanup.js';
import {
  DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS,
  MINIMUM_GRACE_PERIOD_SECONDS,
  containerFieldPath,
  recordEvent,
  type RuntimeDeps,
} from './runtime-deps.js';

/** Grace period for killing a container: the request's, else the pod's, else the container's own annotation. */
export function resolveGracePeriodSeconds(pod: Pod | undefined, requested?: number): number {
  const fromPod = pod?.metadata?.deletionGracePeriodSeconds ?? pod?.spec?.terminationGracePeriodSeconds;
  const grace = requested ?? fromPod ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  return Math.max(grace, MINIMUM_GRACE_PERIOD_SECONDS);
}

async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

export interface KillOptions {
  /** The pod's spec: the container's preStop hook and probe grace periods come from it. */
  pod?: Pod;
  /** The Killing event's message when it is not "Stopping container X" (probe and postStart kills, as upstream). */
  eventMessage?: string;
}

/**
 * As upstream's killContainer: the grace period (a failed probe's own
 * terminationGracePeriodSeconds wins), the Killing event, the preStop hook within
 * the grace period and counted against it, then StopContainer with what is left
 * (at least the minimum); the CRI call's deadline outlasts the grace period.
 */
export async function killContainer(
  deps: RuntimeDeps,
  container: RuntimeContainer,
  gracePeriodSeconds: number,
  reason: string,
  options: KillOptions = {},
): Promise<void> {
  const spec = specOf(options.pod, container.name);
  let grace = probeGracePeriodSeconds(spec, reason) ?? gracePeriodSeconds;
  deps.logger.info({ containerId: container.id, container: container.name, gracePeriodSeconds: grace, reason }, 'Killing container');
  const message = options.eventMessage ?? EventMessages.killingContainer(container.name);
  const fieldPath = containerFieldPath(container.name, container.type === 'INIT');
  recordEvent(deps, 'Normal', 'Killing', message, fieldPath);
  const preStop = spec?.lifecycle?.preStop;
  if (preStop && grace > 0 && options.pod && spec) {
    grace -= await runPreStopHook(deps, { pod: options.pod, spec, container, handler: preStop, graceSeconds: grace });
  }
  grace = Math.max(grace, MINIMUM_GRACE_PERIOD_SECONDS);
  const timeoutMs = deps.settings.runtimeRequestTimeoutMs + grace * 1000;
  await ignoreNotFound(deps.cri.stopContainer({ container_id: container.id, timeout: grace }, timeoutMs));
}

function specOf(pod: Pod | undefined, name: string): Container | undefined {
  return [...(pod?.spec?.containers ?? []), ...(pod?.spec?.initContainers ?? [])].find((c) => c.name === name);
}

/** A liveness or startup kill uses the probe's own terminationGracePeriodSeconds when it has one. */
function probeGracePeriodSeconds(spec: Container | undefined, reason: string): number | undefined {
  if (reason === KILL_REASON_LIVENESS_PROBE) return spec?.livenessProbe?.terminationGracePeriodSeconds ?? undefined;
  if (reason === KILL_REASON_STARTUP_PROBE) return spec?.startupProbe?.terminationGracePeriodSeconds ?? undefined;
  return undefined;
}

/**
 * Whether a container may still have a process to stop. A CREATED container never
 * started: containerd 1.6 leaves it as it is on StopContainer, and upstream counts
 * it as stopped (ConvertPodStatusToRunningPod keeps only running containers); an
 * unknown one may still run, so it is stopped once as upstream does before removal.
 */
export function mayBeRunning(container: RuntimeContainer): boolean {
  return container.state === 'running' || container.state === 'unknown';
}

/** Nothing of the pod runs any more: what SyncTerminatingPod waits for. */
export function podStopped(runtime: RuntimePodStatus): boolean {
  return runtime.containers.every((c) => c.state !== 'running') && runtime.sandboxes.every((s) => s.state !== 'ready');
}

/** Kills every container that may run (in parallel, each with the grace period), then stops every sandbox. */
export async function killPod(
  deps: RuntimeDeps,
  runtime: RuntimePodStatus,
  pod: Pod | undefined,
  gracePeriodSeconds?: number,
): Promise<void> {
  const running = runtime.containers.filter(mayBeRunning);
  const hookSource = pod?.spec ? pod : restoredPod(runtime);
  await Promise.all(
    running.map((container) =>
      killContainer(deps, container, graceFor(pod, container, gracePeriodSeconds), 'Stopping pod', { pod: hookSource }),
    ),
  );
  for (const sandbox of runtime.sandboxes) {
    if (sandbox.state !== 'ready') continue;
    await ignoreNotFound(deps.cri.stopPodSandbox({ pod_sandbox_id: sandbox.id }));
  }
}

/**
 * An orphan's pod as far as its containers' annotations tell (upstream's
 * restoreSpecsFromContainerLabels): enough to run their preStop hooks.
 */
function restoredPod(runtime: RuntimePodStatus): Pod {
  return {
    metadata: { name: runtime.name, namespace: runtime.namespace, uid: runtime.uid },
    spec: { containers: runtime.containers.map((c) => ({ name: c.name, ...(c.preStop ? { lifecycle: { preStop: c.preStop } } : {}) })) },
  };
}

/** An orphan (no spec known) is killed with the grace period recorded on its container, as upstream. */
function graceFor(pod: Pod | undefined, container: RuntimeContainer, requested?: number): number {
  if (requested !== undefined || pod?.spec) return resolveGracePeriodSeconds(pod, requested);
  return resolveGracePeriodSeconds(undefined, container.terminationGracePeriodSeconds);
}

/**
 * Removes every container and sandbox of a pod that no source wants any more, and
 * then its log directory, as upstream's container GC does for deleted pods. The pod
 * was stopped first; RemovePodSandbox stops a sandbox that is somehow ready again.
 */
export async function removePodFromRuntime(deps: RuntimeDeps, runtime: RuntimePodStatus): Promise<void> {
  await Promise.all(
    runtime.containers.map(async (c) => {
      try {
        await ignoreNotFound(deps.cri.removeContainer({ container_id: c.id }));
      } catch (err) {
        // Still a failure of the removal, which is tried again; a leaked task is named once.
        reportRemovalRefused(deps, 'container', c.id, runtime.uid, err);
        throw err;
      }
    }),
  );
  for (const sandbox of runtime.sandboxes) {
    await ignoreNotFound(deps.cri.removePodSandbox({ pod_sandbox_id: sandbox.id }));
  }
  await removePodLogsDirectory(deps, runtime);
}

/** Number of exited instances kept per container name: upstream's MaxPerPodContainer default of 1. */
export const DEAD_CONTAINERS_KEPT_PER_NAME = 1;

function deadContainersKept(deps: RuntimeDeps): number {
  const kept = deps.settings.maxDeadContainersPerContainer ?? DEAD_CONTAINERS_KEPT_PER_NAME;
  return kept < 0 ? Infinity : kept;
}

/**
 * Removes exited containers beyond the newest ones per name (as many as
 * --maximum-dead-containers-per-container, 1 by default), created ones a newer instance replaced, and dead sandboxes other than the newest, as upstream's
 * container GC does for a live pod (it evicts every container that is not running).
 * A container created less than --minimum-container-ttl-duration ago is not
 * evictable at all: it is neither removed nor counted among those kept, as
 * upstream's evictableContainers leaves it out of its evict unit.
 * Resolves with the IDs it removed: the relist will report them gone, and that is
 * not news to the pod. A removal that fails leaves the sync alone (dead-object-removal.ts).
 */
export async function removeDeadInstances(deps: RuntimeDeps, runtime: RuntimePodStatus, nowMs = Date.now()): Promise<string[]> {
  const kept = deadContainersKept(deps);
  const newestEvictableCreatedAtMs = nowMs - (deps.settings.containerGCMinAgeMs ?? 0);
  const exitedSeenByName = new Map<string, number>();
  const removedIds: string[] = [];
  const removals: Array<Promise<void>> = [];
  const remove = (kind: 'container' | 'sandbox', id: string) => {
    removals.push(removeDeadObject(deps, kind, id, runtime.uid).then((gone) => void (gone && removedIds.push(id))));
  };
  const removeContainer = (id: string) => remove('container', id);
  for (const container of runtime.containers) {
    if (container.createdAtMs > newestEvictableCreatedAtMs) continue;
    if (neverStartedAndReplaced(runtime, container)) {
      removeContainer(container.id);
      continue;
    }
    if (container.state !== 'exited') continue;
    const seen = exitedSeenByName.get(container.name) ?? 0;
    exitedSeenByName.set(container.name, seen + 1);
    if (seen >= kept) removeContainer(container.id);
  }
  const sandboxesInUse = new Set(runtime.containers.map((c) => c.sandboxId));
  for (const sandbox of runtime.sandboxes.slice(1)) {
    if (sandbox.state === 'ready' || sandboxesInUse.has(sandbox.id)) continue;
    remove('sandbox', sandbox.id);
  }
  await Promise.all(removals);
  await cleanSubPathsOfGoneContainers(deps, runtime, removedIds);
  return removedIds;
}

/**
 * A container name whose last instance was just removed takes its subPath bind
 * mounts along (a later instance makes its own); while any instance is left they
 * stay for it, as upstream keeps them until the pod's volumes go. Best effort: what
 * is left goes with the pod.
 */
async function cleanSubPathsOfGoneContainers(deps: RuntimeDeps, runtime: RuntimePodStatus, removedIds: string[]): Promise<void> {
  const removed = new Set(removedIds);
  const goneNames = new Set(runtime.containers.filter((c) => removed.has(c.id)).map((c) => c.name));
  for (const container of runtime.containers) if (!removed.has(container.id)) goneNames.delete(container.name);
  for (const name of goneNames) {
    await cleanContainerSubPaths(deps.settings.rootDir, runtime.uid, name).catch((err: Error) => {
      deps.logger.warn({ code: ErrorCodes.SUBPATH_FAILED, podUid: runtime.uid, container: name, err: err.message }, 'Failed to clean up the subPath mounts of a removed container');
    });
  }
}

/** A CREATED container (left by a kubelet that died before StartContainer) with a newer instance of its name: it will never start. */
function neverStartedAndReplaced(runtime: RuntimePodStatus, container: RuntimeContainer): boolean {
  if (container.state !== 'created') return false;
  return runtime.containers.some((other) => other.name === container.name && other.createdAtMs > container.createdAtMs);
}
