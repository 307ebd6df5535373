// Whether a pod needs a new sandbox, as upstream's runtimeutil.PodSandboxChanged.
// Shared by computePodActions and the PodReadyToStartContainers condition.
import type { RuntimePodStatus } from '../runtime-pod.js';
import type { Pod } from '../types.js';

export interface SandboxDecision {
  createSandbox: boolean;
  /** metadata.attempt for the new sandbox, or the current sandbox's attempt when it is kept. */
  attempt: number;
  /** The newest sandbox's ID ('' when there is none, or when the network mode changed, as upstream). */
  sandboxId: string;
  /** Why a new sandbox is needed, for logs and events. */
  reason: string;
}

/** PodSandboxChanged: no sandbox, several ready, newest not ready, network mode changed, or no pod IP. */
export function podSandboxChanged(pod: Pod, status: RuntimePodStatus): SandboxDecision {
  const newest = status.sandboxes[0];
  if (!newest) return { createSandbox: true, attempt: 0, sandboxId: '', reason: 'No sandbox for pod can be found' };
  const next = newest.attempt + 1;
  const readyCount = status.sandboxes.filter((s) => s.state === 'ready').length;
  if (readyCount > 1) {
    return { createSandbox: true, attempt: next, sandboxId: newest.id, reason: 'Multiple sandboxes are ready for pod' };
  }
  if (newest.state !== 'ready') {
    return { createSandbox: true, attempt: next, sandboxId: newest.id, reason: 'No ready sandbox for pod can be found' };
  }
  const hostNetwork = pod.spec?.hostNetwork === true;
  if (newest.hostNetwork !== hostNetwork) {
    return { createSandbox: true, attempt: next, sandboxId: '', reason: 'Sandbox for pod has changed network mode' };
  }
  if (!hostNetwork && newest.ips.length === 0) {
    return { createSandbox: true, attempt: next, sandboxId: newest.id, reason: 'Sandbox for pod has no IP address' };
  }
  return { createSandbox: false, attempt: newest.attempt, sandboxId: newest.id, reason: '' };
}
