// Restart-policy predicates shared by computePodActions and the API status, as
// upstream's kubecontainer.ShouldContainerBeRestarted (pkg/kubelet/container/helpers.go),
// shouldRestartOnFailure / isInitContainerFailed (kuberuntime) and
// podutil.IsRestartableInitContainer.
import { findContainer, type RuntimeContainer, type RuntimePodStatus } from '../runtime-pod.js';
import type { Container, Pod } from '../types.js';

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

/** The pod's restart policy with the API default (Always) applied. */
export function podRestartPolicy(pod: Pod): RestartPolicy {
  const policy = pod.spec?.restartPolicy;
  return policy === 'OnFailure' || policy === 'Never' ? policy : 'Always';
}

/** As kuberuntime's shouldRestartOnFailure: anything but Never restarts a failed container. */
export function shouldRestartOnFailure(pod: Pod): boolean {
  return podRestartPolicy(pod) !== 'Never';
}

/** A sidecar: an init container with its own restartPolicy Always (KEP-753). */
export function isRestartableInitContainer(container: Container): boolean {
  return container.restartPolicy === 'Always';
}

/** As ShouldContainerBeRestarted: whether the next sync should (re)start this container. */
export function shouldContainerBeRestarted(container: Container, pod: Pod, status: RuntimePodStatus): boolean {
  // A pod marked for deletion is being torn down, never restarted.
  if (pod.metadata?.deletionTimestamp) return false;
  const newest = findContainer(status, container.name);
  // Never created (or every instance garbage-collected): start it.
  if (!newest) return true;
  if (newest.state === 'running') return false;
  // A created-but-not-started or unknown container is retried whatever the policy.
  if (newest.state === 'unknown' || newest.state === 'created') return true;
  const policy = podRestartPolicy(pod);
  if (policy === 'Never') return false;
  if (policy === 'OnFailure' && newest.exitCode === 0) return false;
  return true;
}

/** As kuberuntime's isInitContainerFailed: non-zero exit, OOM kill, or unknown state. */
export function isInitContainerFailed(container: RuntimeContainer): boolean {
  if (container.reason.includes('OOMKilled')) return true;
  if (container.state === 'exited' && container.exitCode !== 0) return true;
  return container.state === 'unknown';
}

/** As kuberuntime's containerSucceeded: the newest instance exited 0. */
export function containerSucceeded(status: RuntimePodStatus, name: string): boolean {
  const newest = findContainer(status, name);
  return newest !== undefined && newest.state === 'exited' && newest.exitCode === 0;
}

/** Newest exited instance of a name: the one doBackOff reads the finish time from. */
export function newestExited(status: RuntimePodStatus, name: string): RuntimeContainer | undefined {
  let found: RuntimeContainer | undefined;
  for (const container of status.containers) {
    if (container.name !== name || container.state !== 'exited') continue;
    if (!found || container.createdAtMs > found.createdAtMs) found = container;
  }
  return found;
}

/** Upstream's format.Pod: name_namespace(uid), as it appears in kubelet messages. */
export function formatPod(pod: Pod): string {
  return `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;
}
