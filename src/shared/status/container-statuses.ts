// Container statuses of the API pod status, as upstream's
// Kubelet.convertToAPIContainerStatuses (kubelet_pods.go) followed by the defaults the
// prober manager's UpdatePodStatus sets when a container has no probes (ready and
// started = running; a completed init container is ready).
import { isRestartableInitContainer, shouldContainerBeRestarted } from '../kuberuntime/container-helpers.js';
import { probeOf, type PodProbeResults } from '../prober/probe-results.js';
import type { RuntimeContainer, RuntimePodStatus } from '../runtime-pod.js';
import type { Container, ContainerStatus, Pod } from '../types.js';

// Waiting and terminated reasons the kubelet itself writes (kubelet_pods.go, kubecontainer).
export const CONTAINER_CREATING = 'ContainerCreating';
export const POD_INITIALIZING = 'PodInitializing';
export const CONTAINER_STATUS_UNKNOWN = 'ContainerStatusUnknown';
export const REASON_COMPLETED = 'Completed';
export const REASON_ERROR = 'Error';
/** Exit code upstream reports for a container that vanished: as if SIGKILLed. */
const LOST_CONTAINER_EXIT_CODE = 137;

export type WaitingReasons = Record<string, { reason: string; message: string }>;

export interface ContainerStatusInput {
  pod: Pod;
  runtime: RuntimePodStatus;
  /** The spec containers this list is for (init or app). */
  specs: Container[];
  /** The same list from the previous status. */
  previous: ContainerStatus[];
  isInit: boolean;
  waitingReasons: WaitingReasons;
  runtimeName: string;
  /** The shard's probe results by container ID; a container with a probe and no result is not started / not ready. */
  probes?: PodProbeResults;
}

/** metav1.Time keeps whole seconds; a zero or negative time is absent. */
export function apiTime(ms: number): Date | undefined {
  return ms > 0 ? new Date(Math.floor(ms / 1000) * 1000) : undefined;
}

/** convertToAPIContainerStatuses: init statuses in spec order, app statuses sorted by name as upstream. */
export function convertToAPIContainerStatuses(input: ContainerStatusInput): ContainerStatus[] {
  const previousByName = new Map(input.previous.map((s) => [s.name, s]));
  const statuses = defaultStatuses(input, previousByName);
  inferLostContainers(input, statuses, previousByName);
  applyRuntimeInstances(input, statuses, previousByName);
  applyWaitingReasons(input, statuses);
  const ordered = input.specs.map((c) => statuses.get(c.name) as ContainerStatus);
  for (const [index, status] of ordered.entries()) setReadiness(status, input.specs[index], input.isInit, input.probes);
  // SortedContainerStatuses orders app containers by name; init containers keep spec order.
  return input.isInit ? ordered : ordered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every container starts out waiting; the previous status lends its restart count and last state. */
function defaultStatuses(input: ContainerStatusInput, previousByName: Map<string, ContainerStatus>): Map<string, ContainerStatus> {
  const hasInitContainers = (input.pod.spec?.initContainers ?? []).length > 0;
  const defaultReason = hasInitContainers ? POD_INITIALIZING : CONTAINER_CREATING;
  const statuses = new Map<string, ContainerStatus>();
  for (const container of input.specs) {
    const old = previousByName.get(container.name);
    if (old?.state?.terminated) {
      // A terminated container whose record the runtime has lost stays terminated.
      statuses.set(container.name, structuredClone(old));
      continue;
    }
    const status: ContainerStatus = {
      name: container.name,
      image: container.image ?? '',
      imageID: '',
      ready: false,
      restartCount: old?.restartCount ?? 0,
      state: { waiting: { reason: defaultReason } },
    };
    if (old?.lastState) status.lastState = structuredClone(old.lastState);
    statuses.set(container.name, status);
  }
  return statuses;
}

/**
 * A container the previous status showed running that the runtime no longer has at
 * all ran and stopped: record an unknown termination so the pod does not fall back
 * to Pending, as upstream does.
 */
function inferLostContainers(
  input: ContainerStatusInput,
  statuses: Map<string, ContainerStatus>,
  previousByName: Map<string, ContainerStatus>,
): void {
  const hasInitContainers = (input.pod.spec?.initContainers ?? []).length > 0;
  const defaultReason = hasInitContainers ? POD_INITIALIZING : CONTAINER_CREATING;
  for (const container of input.specs) {
    if (input.runtime.containers.some((c) => c.name === container.name)) continue;
    const old = previousByName.get(container.name);
    if (!old?.state?.running) continue;
    const status = statuses.get(container.name) as ContainerStatus;
    if (status.state?.waiting?.reason !== defaultReason || status.lastState?.terminated) continue;
    status.lastState = {
      terminated: {
        reason: CONTAINER_STATUS_UNKNOWN,
        message: 'The container could not be located when the pod was deleted.  The container used to be Running',
        exitCode: LOST_CONTAINER_EXIT_CODE,
      },
    };
    if (!input.pod.metadata?.deletionTimestamp) status.restartCount += 1;
  }
}

/** The newest instance of each container gives its state; the one before it gives lastState. */
function applyRuntimeInstances(
  input: ContainerStatusInput,
  statuses: Map<string, ContainerStatus>,
  previousByName: Map<string, ContainerStatus>,
): void {
  for (const container of input.specs) {
    const instances = input.runtime.containers
      .filter((c) => c.name === container.name)
      .sort((a, b) => b.createdAtMs - a.createdAtMs);
    if (instances.length === 0) continue;
    const old = previousByName.get(container.name);
    const status = convertContainerStatus(instances[0], container, old, input.runtimeName);
    if (instances.length > 1) {
      status.lastState = convertContainerStatus(instances[1], container, old, input.runtimeName).state;
    }
    statuses.set(container.name, status);
  }
}

/** As upstream's convertContainerStatus closure: one runtime instance as an API status. */
function convertContainerStatus(
  instance: RuntimeContainer,
  spec: Container,
  old: ContainerStatus | undefined,
  runtimeName: string,
): ContainerStatus {
  const containerID = `${runtimeName}://${instance.id}`;
  const status: ContainerStatus = {
    name: instance.name,
    image: instance.image || spec.image || '',
    imageID: instance.imageRef,
    containerID,
    ready: false,
    restartCount: instance.restartCount,
    state: {},
  };
  if (instance.state === 'running') {
    status.state = { running: { startedAt: apiTime(instance.startedAtMs) } };
  } else if (instance.state === 'exited') {
    status.state = {
      terminated: {
        exitCode: instance.exitCode,
        reason: instance.reason || (instance.exitCode === 0 ? REASON_COMPLETED : REASON_ERROR),
        message: instance.message || undefined,
        startedAt: apiTime(instance.startedAtMs),
        finishedAt: apiTime(instance.finishedAtMs),
        containerID,
      },
    };
  } else if (instance.state === 'unknown' && old?.state?.running) {
    // It was running and cannot be found now: it ran and failed, it did not "never run".
    status.state = {
      terminated: {
        reason: CONTAINER_STATUS_UNKNOWN,
        message: 'The container could not be located when the pod was terminated',
        exitCode: LOST_CONTAINER_EXIT_CODE,
      },
    };
    status.restartCount = old.restartCount + 1;
  } else {
    // Created but not started, or unknown: waiting, with the reason (if any) filled in below.
    status.state = { waiting: {} };
  }
  // KEP 3619: the identity the runtime says the process started with (upstream's convertContainerStatusUser).
  if (instance.user) status.user = { linux: { uid: instance.user.uid, gid: instance.user.gid, supplementalGroups: [...instance.user.supplementalGroups] } };
  return status;
}

/** A container the next sync will (re)start shows why it is not running yet, from the last sync. */
function applyWaitingReasons(input: ContainerStatusInput, statuses: Map<string, ContainerStatus>): void {
  for (const container of input.specs) {
    if (input.isInit && completedInit(input.runtime, container.name)) continue;
    if (!shouldContainerBeRestarted(container, input.pod, input.runtime)) continue;
    const waiting = input.waitingReasons[container.name];
    if (!waiting) continue;
    const status = statuses.get(container.name) as ContainerStatus;
    if (status.state?.terminated) status.lastState = status.state;
    status.state = { waiting: { reason: waiting.reason, message: waiting.message || undefined } };
  }
}

function completedInit(runtime: RuntimePodStatus, name: string): boolean {
  const newest = runtime.containers
    .filter((c) => c.name === name)
    .reduce<RuntimeContainer | undefined>((a, b) => (!a || b.createdAtMs > a.createdAtMs ? b : a), undefined);
  return newest?.state === 'exited' && newest.exitCode === 0;
}

/**
 * As the prober manager's UpdatePodStatus: started once running and the startup
 * probe (if any) succeeded; ready once started and the readiness probe (if any)
 * succeeded; a completed (non-sidecar) init container is ready.
 */
function setReadiness(status: ContainerStatus, spec: Container, isInit: boolean, probes: PodProbeResults | undefined): void {
  const running = status.state?.running !== undefined;
  const containerId = status.containerID?.replace(/^[^:]*:\/\//, '') ?? '';
  const resultOf = (type: 'startup' | 'readiness') => (probes ? probes[type][containerId] : undefined);
  const passed = (type: 'startup' | 'readiness') => {
    const result = resultOf(type);
    return result !== undefined ? result === 'success' : probeOf(spec, type) === undefined;
  };
  const started = running && passed('startup');
  status.started = started;
  if (isInit && !isRestartableInitContainer(spec)) {
    status.ready = status.state?.terminated !== undefined && status.state.terminated.exitCode === 0;
    return;
  }
  status.ready = started && passed('readiness');
}
