// The plain, serialisable event a shard or the main thread reports, and the
// reasons and message formats the upstream kubelet uses for it
// (pkg/kubelet/events/event.go, kuberuntime, images, nodestatus, lifecycle).
// Imports nothing, so that a shard can build events with the same helpers.

export type EventType = 'Normal' | 'Warning';

export interface InvolvedObject {
  kind: 'Pod' | 'Node';
  namespace?: string;
  name: string;
  uid: string;
  /** The container within the pod, e.g. `spec.containers{app}` or `spec.initContainers{init}`. */
  fieldPath?: string;
}

export interface KubeletEvent {
  involvedObject: InvolvedObject;
  type: EventType;
  reason: string;
  message: string;
  /** When the event happened (epoch ms); becomes firstTimestamp / lastTimestamp and the name suffix. */
  timestampMs: number;
}

/** Upstream's reason strings (pkg/kubelet/events). */
export const EventReasons = {
  // Container events.
  CreatedContainer: 'Created',
  StartedContainer: 'Started',
  FailedToCreateContainer: 'Failed',
  FailedToStartContainer: 'Failed',
  KillingContainer: 'Killing',
  PreemptContainer: 'Preempting',
  BackOffStartContainer: 'BackOff',
  ExceededGracePeriod: 'ExceededGracePeriod',
  FailedPostStartHook: 'FailedPostStartHook',
  FailedPreStopHook: 'FailedPreStopHook',
  // Image events.
  PullingImage: 'Pulling',
  PulledImage: 'Pulled',
  FailedToPullImage: 'Failed',
  FailedToInspectImage: 'InspectFailed',
  ErrImageNeverPull: 'ErrImageNeverPull',
  BackOffPullImage: 'BackOff',
  // Pod events.
  FailedToKillPod: 'FailedKillPod',
  FailedCreatePodSandBox: 'FailedCreatePodSandBox',
  FailedStatusPodSandBox: 'FailedPodSandBoxStatus',
  SandboxChanged: 'SandboxChanged',
  FailedMountVolume: 'FailedMount',
  FailedSync: 'FailedSync',
  NetworkNotReady: 'NetworkNotReady',
  // Admission rejections (upstream: "OutOf" + the resource name, or the predicate's name).
  OutOfPods: 'OutOfpods',
  OutOfCpu: 'OutOfcpu',
  OutOfMemory: 'OutOfmemory',
  OutOfEphemeralStorage: 'OutOfephemeral-storage',
  NodeAffinity: 'NodeAffinity',
  TaintToleration: 'TaintToleration',
  // Node events.
  StartingKubelet: 'Starting',
  NodeReady: 'NodeReady',
  NodeNotReady: 'NodeNotReady',
  NodeSchedulable: 'NodeSchedulable',
  NodeNotSchedulable: 'NodeNotSchedulable',
  NodeHasSufficientMemory: 'NodeHasSufficientMemory',
  NodeHasInsufficientMemory: 'NodeHasInsufficientMemory',
  NodeHasNoDiskPressure: 'NodeHasNoDiskPressure',
  NodeHasDiskPressure: 'NodeHasDiskPressure',
  NodeHasSufficientPID: 'NodeHasSufficientPID',
  NodeHasInsufficientPID: 'NodeHasInsufficientPID',
  NodeAllocatableEnforced: 'NodeAllocatableEnforced',
  FreeDiskSpaceFailed: 'FreeDiskSpaceFailed',
  ContainerGCFailed: 'ContainerGCFailed',
  InvalidDiskCapacity: 'InvalidDiskCapacity',
  /** Recorded by the node lifecycle controller upstream, not the kubelet. */
  RegisteredNode: 'RegisteredNode',
} as const;

/** Go's %q for the plain strings these messages carry (image names, volume names). */
function quoted(text: string): string {
  return JSON.stringify(text);
}

/**
 * Go's time.Duration String() for a duration truncated to milliseconds, as
 * upstream prints pull times: `0s`, `512ms`, `1.2s`, `1m2.5s`, `1h0m0s`.
 */
export function formatGoDurationMs(durationMs: number): string {
  const ms = Math.max(0, Math.trunc(durationMs));
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const wholeSeconds = Math.floor((ms % 60_000) / 1000);
  const fraction = String(ms % 1000).padStart(3, '0').replace(/0+$/, '');
  const seconds = `${wholeSeconds}${fraction ? `.${fraction}` : ''}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

/** Upstream's format.Pod: `name_namespace(uid)`. */
export function formatPodRef(name: string, namespace: string, uid: string): string {
  return `${name}_${namespace}(${uid})`;
}

/** The involved object's fieldPath for a container, as upstream's ref.GetPartialReference. */
export function containerFieldPath(containerName: string, init = false): string {
  return `${init ? 'spec.initContainers' : 'spec.containers'}{${containerName}}`;
}

/** Messages in upstream's wording, one helper per message format. */
export const EventMessages = {
  pullingImage: (image: string): string => `Pulling image ${quoted(image)}`,
  /** images/image_manager.go: pull time, then the time including the wait in the pull queue. */
  pulledImage: (image: string, pullMs: number, totalMs: number, imageSizeBytes: number): string =>
    `Successfully pulled image ${quoted(image)} in ${formatGoDurationMs(pullMs)} (${formatGoDurationMs(totalMs)} including waiting). Image size: ${imageSizeBytes} bytes.`,
  imageAlreadyPresent: (image: string): string => `Container image ${quoted(image)} already present on machine`,
  errImageNeverPull: (image: string): string => `Container image ${quoted(image)} is not present with pull policy of Never`,
  failedToPullImage: (image: string, error: string): string => `Failed to pull image ${quoted(image)}: ${error}`,
  backOffPullingImage: (image: string): string => `Back-off pulling image ${quoted(image)}`,
  /** The Warning/Failed event that carries a container's waiting reason, e.g. `Error: ErrImagePull`. */
  containerError: (reasonOrMessage: string): string => `Error: ${reasonOrMessage}`,
  createdContainer: (containerName: string): string => `Created container: ${containerName}`,
  startedContainer: (containerName: string): string => `Started container ${containerName}`,
  killingContainer: (containerName: string): string => `Stopping container ${containerName}`,
  livenessProbeRestart: (containerName: string): string => `Container ${containerName} failed liveness probe, will be restarted`,
  definitionChangedRestart: (containerName: string): string => `Container ${containerName} definition changed, will be restarted`,
  backOffRestartingContainer: (containerName: string, podName: string, podNamespace: string, podUid: string): string =>
    `Back-off restarting failed container ${containerName} in pod ${formatPodRef(podName, podNamespace, podUid)}`,
  failedCreatePodSandbox: (error: string): string => `Failed to create pod sandbox: ${error}`,
  sandboxChanged: (): string => 'Pod sandbox changed, it will be killed and re-created.',
  /** volumemanager's MountVolume.SetUp failure, e.g. for a missing ConfigMap. */
  mountSetUpFailed: (volumeName: string, error: string): string => `MountVolume.SetUp failed for volume ${quoted(volumeName)} : ${error}`,
  /** lifecycle's InsufficientResourceError, the message of OutOf<resource>. */
  outOfResource: (resourceName: string, requested: number, used: number, capacity: number): string =>
    `Node didn't have enough resource: ${resourceName}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
  predicateFailed: (predicateName: string, description: string): string => `Predicate ${predicateName} failed: ${description}`,
  startingKubelet: (): string => 'Starting kubelet.',
  /** kubelet's recordNodeStatusEvent, for NodeReady, NodeNotReady, NodeHasSufficientMemory, …. */
  nodeStatus: (nodeName: string, reason: string): string => `Node ${nodeName} status is now: ${reason}`,
  registeredNode: (nodeName: string): string => `Node ${nodeName} event: Registered Node ${nodeName} in Controller`,
} as const;

/** The involved object for the node, as the kubelet's nodeRef (UID = node name, no namespace). */
export function nodeObject(nodeName: string): InvolvedObject {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}

/** The involved object for a pod or one of its containers. */
export function podObject(pod: { name: string; namespace: string; uid: string }, fieldPath?: string): InvolvedObject {
  return { kind: 'Pod', namespace: pod.namespace, name: pod.name, uid: pod.uid, ...(fieldPath ? { fieldPath } : {}) };
}
