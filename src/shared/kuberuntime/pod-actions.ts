// The result of computePodActions, as upstream's kuberuntime podActions, plus the
// small helpers the planning steps share. Plain data: it is logged and may cross a
// thread boundary.
import type { PodProbeResults } from '../prober/probe-results.js';
import type { RuntimeContainer } from '../runtime-pod.js';
import type { SandboxDecision } from './sandbox-changed.js';

export interface ContainerToKill {
  id: string;
  name: string;
  reason: string;
  message: string;
}

/** Whether a kill's message is what its Killing event says (probe kills), rather than "Stopping container X". */
export function killMessageIsEvent(reason: string): boolean {
  return reason === KILL_REASON_LIVENESS_PROBE || reason === KILL_REASON_STARTUP_PROBE;
}

export interface PodActions {
  /** Kill every container and the sandbox (sandbox changed, or the pod is done). */
  killPod: boolean;
  createSandbox: boolean;
  /** The sandbox to use when !createSandbox ('' otherwise). */
  sandboxId: string;
  /** metadata.attempt for a new sandbox. */
  attempt: number;
  /** Init container name to start now. */
  nextInitContainerToStart: string | null;
  /** An init container failed and the restart policy (Never) says the pod has failed. */
  initFailed: boolean;
  /** App container names to start now, in spec order. */
  containersToStart: string[];
  /** Running containers to kill (spec changed / not in spec), keeping the others. */
  containersToKill: ContainerToKill[];
  /** Containers that would start but are in CrashLoopBackOff. */
  backoff: { name: string; untilMs: number; message: string }[];
}

/** What the sync would start if no CrashLoopBackOff held it back, in spec order. */
export interface StartPlan {
  init: string[];
  app: string[];
}

// Upstream's containerKillReason values where it has one (reasonUnknown); the others
// name the cases upstream leaves without a reason.
export const KILL_REASON_UNKNOWN = 'Unknown';
export const KILL_REASON_SPEC_CHANGED = 'SpecChanged';
export const KILL_REASON_NOT_IN_SPEC = 'NotInSpec';
export const KILL_REASON_DUPLICATE = 'Duplicate';
export const KILL_REASON_LIVENESS_PROBE = 'LivenessProbe';
export const KILL_REASON_STARTUP_PROBE = 'StartupProbe';

/** Actions before any container is looked at: only the sandbox decision. */
export function newPodActions(sandbox: SandboxDecision): PodActions {
  return {
    killPod: sandbox.createSandbox,
    createSandbox: sandbox.createSandbox,
    sandboxId: sandbox.createSandbox ? '' : sandbox.sandboxId,
    attempt: sandbox.attempt,
    nextInitContainerToStart: null,
    initFailed: false,
    containersToStart: [],
    containersToKill: [],
    backoff: [],
  };
}

/** Adds a container to kill once, whatever the number of reasons found for it. */
export function addKill(actions: PodActions, container: RuntimeContainer, reason: string, message: string): void {
  if (actions.containersToKill.some((kill) => kill.id === container.id)) return;
  actions.containersToKill.push({ id: container.id, name: container.name, reason, message });
}

/** Upstream's message when a container in unknown state is killed before its restart. */
export function unknownStateMessage(kind: 'Container' | 'Init container'): string {
  return `${kind} is in "unknown" state, try killing it before restart`;
}

/** A liveness or startup probe failure of the instance, as upstream's checks in computePodActions. */
export function failedProbe(
  instance: RuntimeContainer,
  probes: PodProbeResults | undefined,
  kind: 'Container' | 'Init container',
): { reason: string; message: string } | undefined {
  if (probes?.liveness[instance.id] === 'failure') {
    return { reason: KILL_REASON_LIVENESS_PROBE, message: `${kind} ${instance.name} failed liveness probe` };
  }
  if (probes?.startup[instance.id] === 'failure') {
    return { reason: KILL_REASON_STARTUP_PROBE, message: `${kind} ${instance.name} failed startup probe` };
  }
  return undefined;
}

