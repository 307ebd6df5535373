// Init container progress, as upstream's computeInitContainerActions (the
// SidecarContainers path, on by default since 1.29): init containers run one at a
// time in spec order, each to completion; a failed one is restarted unless the pod's
// restartPolicy is Never, which fails the pod. Restartable init containers
// (sidecars) count as done once running and are restarted whenever they stop.
//
// Upstream walks the init containers backwards from the last one that has a status,
// because completed init containers may have been garbage-collected. One departure:
// only instances in the current sandbox count as progress, so a sandbox re-created
// after initialization re-runs every init container instead of trusting an old
// sandbox's completed instance (the ambiguity upstream notes in its comments).
import type { RuntimeContainer, RuntimePodStatus } from '../runtime-pod.js';
import type { Container, Pod } from '../types.js';
import { hashContainer } from './container-hash.js';
import { isInitContainerFailed, isRestartableInitContainer, shouldRestartOnFailure } from './container-helpers.js';
import type { PodProbeResults } from '../prober/probe-results.js';
import {
  addKill,
  failedProbe,
  KILL_REASON_SPEC_CHANGED,
  KILL_REASON_UNKNOWN,
  unknownStateMessage,
  type PodActions,
  type StartPlan,
} from './pod-actions.js';

/** State of the backwards walk over the init containers. */
interface InitWalk {
  pod: Pod;
  inits: Container[];
  actions: PodActions;
  /** Indexes of init containers to start, in reverse spec order (reversed at the end). */
  toStart: number[];
  podHasInitialized: boolean;
  previouslyInitialized: boolean;
  probes?: PodProbeResults;
}

/** Plans init containers into `plan.init`; returns whether the pod has been initialized. */
export function computeInitContainerActions(
  pod: Pod,
  status: RuntimePodStatus,
  sandboxId: string,
  actions: PodActions,
  plan: StartPlan,
  probes?: PodProbeResults,
): boolean {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return true;
  const current = (name: string) => newestInSandbox(status, name, sandboxId);
  // A created or running app container means initialization finished earlier.
  const appStarted = (pod.spec?.containers ?? []).some((c) => {
    const state = current(c.name)?.state;
    return state === 'created' || state === 'running';
  });
  const walk: InitWalk = { pod, inits, actions, toStart: [], podHasInitialized: appStarted, previouslyInitialized: appStarted, probes };
  for (let index = inits.length - 1; index >= 0; index--) {
    const container = inits[index];
    const instance = current(container.name);
    const restartable = isRestartableInitContainer(container);
    if (!instance) {
      if (walk.previouslyInitialized && restartable) walk.toStart.push(index);
      continue;
    }
    if (walk.previouslyInitialized && !restartable) continue;
    if (!stepInitContainer(walk, index, instance)) {
      plan.init = [];
      return false;
    }
    walk.previouslyInitialized = true;
  }
  if (!walk.previouslyInitialized) walk.toStart.push(0);
  plan.init = walk.toStart.reverse().map((index) => inits[index].name);
  return walk.podHasInitialized;
}

/** One init container with an instance in this sandbox; false when the pod has failed. */
function stepInitContainer(walk: InitWalk, index: number, instance: RuntimeContainer): boolean {
  const container = walk.inits[index];
  const restartable = isRestartableInitContainer(container);
  switch (instance.state) {
    case 'created':
      // Created but never started: the runtime likely failed the start; retry it.
      walk.toStart.push(index);
      return true;
    case 'running':
      if (restartable) stepRunningSidecar(walk, index, instance);
      return true;
    case 'exited':
      if (restartable || isInitContainerFailed(instance)) return restartFailed(walk, index, restartable);
      markInitialized(walk, index);
      return true;
    default:
      if (!restartable && !shouldRestartOnFailure(walk.pod)) return failPod(walk);
      addKill(walk.actions, instance, KILL_REASON_UNKNOWN, unknownStateMessage('Init container'));
      walk.toStart.push(index);
      return true;
  }
}

/** A stopped sidecar is always restarted; a failed init container only if the policy allows. */
function restartFailed(walk: InitWalk, index: number, restartable: boolean): boolean {
  if (!restartable && !shouldRestartOnFailure(walk.pod)) return failPod(walk);
  walk.toStart.push(index);
  return true;
}

/**
 * A running sidecar counts as initialized once its startup probe (if any) passed;
 * a spec change or a failed liveness or startup probe restarts it.
 */
function stepRunningSidecar(walk: InitWalk, index: number, instance: RuntimeContainer): void {
  const container = walk.inits[index];
  const startupPending = container.startupProbe && walk.probes?.startup[instance.id] !== 'success';
  if (!startupPending) markInitialized(walk, index);
  if (instance.hash !== '' && instance.hash !== hashContainer(container)) {
    addKill(walk.actions, instance, KILL_REASON_SPEC_CHANGED, specChangedMessage(instance, container));
    walk.toStart.push(index);
    return;
  }
  const probeFailure = failedProbe(instance, walk.probes, 'Init container');
  if (probeFailure) {
    addKill(walk.actions, instance, probeFailure.reason, probeFailure.message);
    walk.toStart.push(index);
  }
}

/** The init container at index is done: the pod is initialized, or the next one starts. */
function markInitialized(walk: InitWalk, index: number): void {
  if (index === walk.inits.length - 1) walk.podHasInitialized = true;
  else if (!walk.previouslyInitialized) walk.toStart.push(index + 1);
}

/** restartPolicy Never and a failed init container: the pod has failed, as upstream's KillPod. */
function failPod(walk: InitWalk): boolean {
  walk.actions.killPod = true;
  walk.actions.initFailed = true;
  walk.toStart = [];
  return false;
}

/** Message for a container killed because its spec hash changed, as upstream's wording. */
export function specChangedMessage(instance: RuntimeContainer, container: Container): string {
  return (
    `Container spec hash changed (${instance.hash} vs ${hashContainer(container)}). ` +
    `Container ${container.name} will be killed and recreated.`
  );
}

/** Newest instance of a name created in the given sandbox. */
function newestInSandbox(status: RuntimePodStatus, name: string, sandboxId: string): RuntimeContainer | undefined {
  let found: RuntimeContainer | undefined;
  for (const container of status.containers) {
    if (container.name !== name || container.sandboxId !== sandboxId) continue;
    if (!found || container.createdAtMs > found.createdAtMs) found = container;
  }
  return found;
}
