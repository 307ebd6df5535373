// Which container instance a log request reads, from the pod's status as the
// kubelet last computed it: upstream's validateContainerLogStatus
// (kubelet_pods.go), with its error messages.
import type { ContainerStatus, PodStatus } from '../../shared/types.js';

/** The runtime's container ID (without the `containerd://` scheme), or the reason there is none. */
export type LogContainerChoice = { containerId: string } | { error: string };

/** Pending reasons upstream explains in words (images.ErrImagePull, ErrImagePullBackOff). */
const WAITING_EXPLANATIONS: Readonly<Record<string, string>> = {
  ErrImagePull: "image can't be pulled",
  ImagePullBackOff: 'trying and failing to pull image',
};

export function logContainerId(status: PodStatus | undefined, containerName: string, podName: string, previous: boolean): LogContainerChoice {
  const containerStatus = findStatus(status, containerName);
  const what = `container ${JSON.stringify(containerName)} in pod ${JSON.stringify(podName)}`;
  if (!containerStatus) return { error: `${what} is not available` };
  const lastTerminated = containerStatus.lastState?.terminated;
  const { waiting, running, terminated } = containerStatus.state ?? {};
  if (previous) {
    if (!lastTerminated?.containerID) return { error: `previous terminated container ${JSON.stringify(containerName)} in pod ${JSON.stringify(podName)} not found` };
    return { containerId: withoutScheme(lastTerminated.containerID) };
  }
  if (running) return containerStatus.containerID ? { containerId: withoutScheme(containerStatus.containerID) } : { error: `${what} is waiting to start - no logs yet` };
  if (terminated) {
    // The next instance did not start: its terminated state has no ID, the last one has.
    const containerId = terminated.containerID || lastTerminated?.containerID;
    return containerId ? { containerId: withoutScheme(containerId) } : { error: `${what} is terminated` };
  }
  if (lastTerminated) return lastTerminated.containerID ? { containerId: withoutScheme(lastTerminated.containerID) } : { error: `${what} is terminated` };
  if (waiting) {
    const reason = waiting.reason ?? '';
    return { error: `${what} is waiting to start: ${WAITING_EXPLANATIONS[reason] ?? reason}` };
  }
  return { error: `${what} is waiting to start - no logs yet` };
}

function findStatus(status: PodStatus | undefined, containerName: string): ContainerStatus | undefined {
  for (const list of [status?.containerStatuses, status?.initContainerStatuses, status?.ephemeralContainerStatuses]) {
    const found = list?.find((candidate) => candidate.name === containerName);
    if (found) return found;
  }
  return undefined;
}

/** `containerd://abc` → `abc`, as upstream's ParseContainerID. */
function withoutScheme(containerId: string): string {
  const separator = containerId.indexOf('://');
  return separator < 0 ? containerId : containerId.slice(separator + 3);
}
