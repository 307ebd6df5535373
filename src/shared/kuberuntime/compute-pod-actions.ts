// What one sync must do to bring the runtime in line with the pod spec, as upstream's
// kubeGenericRuntimeManager.computePodActions, plus the CrashLoopBackOff check that
// upstream makes later in SyncPod (doBackOff) so that the caller gets one plan.
// Pure: it reads the pod, the runtime's view of it and the clock, nothing else.
//
// Liveness and startup probe failures come from the shard's prober as results by
// container ID. Left out for now: ephemeral containers, in-place resize
// (computePodResizeAction), and for sidecars the ability to start several init
// containers in one sync (one per sync here).
import type { PodProbeResults } from '../prober/probe-results.js';
import { findContainer, type RuntimeContainer, type RuntimePodStatus } from '../runtime-pod.js';
import type { Container, Pod } from '../types.js';
import { hashContainer } from './container-hash.js';
import {
  containerSucceeded,
  formatPod,
  newestExited,
  podRestartPolicy,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
} from './container-helpers.js';
import { crashBackoffDelayMs, crashBackoffUntilMs, formatGoDurationSeconds } from './crash-backoff.js';
import { computeInitContainerActions, specChangedMessage } from './init-container-actions.js';
import {
  addKill,
  failedProbe,
  KILL_REASON_DUPLICATE,
  KILL_REASON_NOT_IN_SPEC,
  KILL_REASON_SPEC_CHANGED,
  KILL_REASON_UNKNOWN,
  newPodActions,
  unknownStateMessage,
  type PodActions,
  type StartPlan,
} from './pod-actions.js';
import { podSandboxChanged } from './sandbox-changed.js';

export type { ContainerToKill, PodActions } from './pod-actions.js';

/** The actions for one sync of the pod at time nowMs, given the shard's probe results. */
export function computePodActions(pod: Pod, status: RuntimePodStatus, nowMs: number, probes?: PodProbeResults): PodActions {
  const sandbox = podSandboxChanged(pod, status);
  const actions = newPodActions(sandbox);
  const plan: StartPlan = { init: [], app: [] };
  if (sandbox.createSandbox) {
    planForNewSandbox(pod, status, actions, plan);
  } else {
    const initialized = computeInitContainerActions(pod, status, sandbox.sandboxId, actions, plan, probes);
    if (!actions.killPod && initialized) planAppContainers(pod, status, actions, plan, probes);
  }
  if (!actions.killPod) killUnwantedInstances(pod, status, actions);
  applyCrashBackoff(pod, status, actions, plan, nowMs);
  return actions;
}

/** The createPodSandbox branch of computePodActions: everything restarts from the first init container. */
function planForNewSandbox(pod: Pod, status: RuntimePodStatus, actions: PodActions, plan: StartPlan): void {
  // A Never pod whose containers already ran in an earlier sandbox is over: do not
  // create a sandbox only to tear it down. With no container ever created, retry.
  if (!shouldRestartOnFailure(pod) && actions.attempt !== 0 && status.containers.length !== 0) {
    actions.createSandbox = false;
    return;
  }
  const onFailure = podRestartPolicy(pod) === 'OnFailure';
  const appNames = (pod.spec?.containers ?? [])
    .filter((c) => !(onFailure && containerSucceeded(status, c.name)))
    .map((c) => c.name);
  // Initialization done and nothing left to run: no new sandbox.
  if (appNames.length === 0 && hasAnyRegularContainerCreated(pod, status)) {
    actions.createSandbox = false;
    return;
  }
  const firstInit = pod.spec?.initContainers?.[0];
  if (firstInit) {
    plan.init = [firstInit.name];
    return;
  }
  plan.app = appNames;
}

/** As upstream's hasAnyRegularContainerCreated: some app container exists in any state but unknown. */
function hasAnyRegularContainerCreated(pod: Pod, status: RuntimePodStatus): boolean {
  return (pod.spec?.containers ?? []).some((c) => {
    const state = findContainer(status, c.name)?.state;
    return state === 'created' || state === 'running' || state === 'exited';
  });
}

/** The app-container loop of computePodActions: start what should run, restart changed specs. */
function planAppContainers(pod: Pod, status: RuntimePodStatus, actions: PodActions, plan: StartPlan, probes?: PodProbeResults): void {
  let keepCount = 0;
  for (const container of pod.spec?.containers ?? []) {
    const newest = findContainer(status, container.name);
    if (!newest || newest.state !== 'running') {
      if (!shouldContainerBeRestarted(container, pod, status)) continue;
      plan.app.push(container.name);
      // An unknown container may still be running: kill it first so two never run.
      if (newest?.state === 'unknown') addKill(actions, newest, KILL_REASON_UNKNOWN, unknownStateMessage('Container'));
      continue;
    }
    if (specHashChanged(container, newest)) {
      // Restarted whatever the restart policy: the spec, not the process, changed.
      addKill(actions, newest, KILL_REASON_SPEC_CHANGED, specChangedMessage(newest, container));
      plan.app.push(container.name);
      continue;
    }
    const probeFailure = failedProbe(newest, probes, 'Container');
    if (probeFailure) {
      // Killed, and started again unless the restart policy is Never; the pod itself lives on.
      const restart = shouldRestartOnFailure(pod);
      addKill(actions, newest, probeFailure.reason, restart ? `${probeFailure.message}, will be restarted` : probeFailure.message);
      if (restart) plan.app.push(container.name);
      continue;
    }
    keepCount++;
  }
  if (keepCount === 0 && plan.app.length === 0) {
    // Nothing runs and nothing will: the pod is done; sidecars are not restarted.
    actions.killPod = true;
    plan.init = [];
  }
}

/**
 * A container created without a hash annotation (not by a kubelet) is kept rather
 * than restarted: an unknown hash is no evidence that the spec changed.
 */
function specHashChanged(container: Container, running: RuntimeContainer): boolean {
  return running.hash !== '' && running.hash !== hashContainer(container);
}

/**
 * Running containers that no spec entry owns, and running instances older than the
 * newest of their name (left by an interrupted sync), as upstream's older
 * computePodActions killed every running container it did not keep.
 */
function killUnwantedInstances(pod: Pod, status: RuntimePodStatus, actions: PodActions): void {
  const specNames = new Set<string>();
  for (const c of pod.spec?.initContainers ?? []) specNames.add(c.name);
  for (const c of pod.spec?.containers ?? []) specNames.add(c.name);
  for (const c of pod.spec?.ephemeralContainers ?? []) specNames.add(c.name);
  for (const container of status.containers) {
    if (container.state !== 'running' && container.state !== 'unknown') continue;
    if (!specNames.has(container.name)) {
      addKill(actions, container, KILL_REASON_NOT_IN_SPEC, `Container ${container.name} is not in the pod spec`);
    } else if (findContainer(status, container.name)?.id !== container.id) {
      addKill(actions, container, KILL_REASON_DUPLICATE, `Container ${container.name} has a newer instance`);
    }
  }
}

/** SyncPod's doBackOff, applied to the plan: due containers start, the others wait. */
function applyCrashBackoff(pod: Pod, status: RuntimePodStatus, actions: PodActions, plan: StartPlan, nowMs: number): void {
  for (const name of plan.init) {
    const held = backoffFor(pod, status, name, nowMs);
    if (held) {
      actions.backoff.push(held);
      continue;
    }
    // One init container per sync; the next one is found by the next sync.
    actions.nextInitContainerToStart = name;
    break;
  }
  for (const name of plan.app) {
    const held = backoffFor(pod, status, name, nowMs);
    if (held) actions.backoff.push(held);
    else actions.containersToStart.push(name);
  }
}

/** The backoff entry for a container due to start, or undefined when it may start now. */
function backoffFor(
  pod: Pod,
  status: RuntimePodStatus,
  name: string,
  nowMs: number,
): PodActions['backoff'][number] | undefined {
  // A running container restarted for a spec change is not crash-looping.
  if (findContainer(status, name)?.state === 'running') return undefined;
  const exited = newestExited(status, name);
  if (!exited) return undefined;
  const untilMs = crashBackoffUntilMs(exited);
  if (untilMs <= nowMs) return undefined;
  const delay = formatGoDurationSeconds(crashBackoffDelayMs(exited));
  return { name, untilMs, message: `back-off ${delay} restarting failed container=${name} pod=${formatPod(pod)}` };
}
