// The pod phase from its container statuses, as upstream's getPhase (kubelet_pods.go).
import { isRestartableInitContainer, podRestartPolicy } from '../kuberuntime/container-helpers.js';
import type { ContainerStatus, Pod } from '../types.js';
import { isStaticPod } from '../pod-kinds.js';

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

/** Succeeded or Failed: a phase the pod never leaves (upstream's podutil.IsPodPhaseTerminal). */
export function isTerminalPhase(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

interface PhaseCounts {
  pendingInit: number;
  pendingSidecars: number;
  failedInit: number;
  unknown: number;
  running: number;
  waiting: number;
  stopped: number;
  succeeded: number;
}

/**
 * getPhase. podIsTerminal: the pod worker has finished with the pod, so its
 * containers will not be restarted whatever the restart policy says.
 */
export function getPhase(pod: Pod, statuses: ContainerStatus[], podIsTerminal: boolean): PodPhase {
  const byName = new Map(statuses.map((s) => [s.name, s]));
  const counts: PhaseCounts = {
    pendingInit: 0,
    pendingSidecars: 0,
    failedInit: 0,
    unknown: 0,
    running: 0,
    waiting: 0,
    stopped: 0,
    succeeded: 0,
  };
  for (const container of pod.spec?.initContainers ?? []) {
    const status = byName.get(container.name);
    if (isRestartableInitContainer(container)) countSidecar(counts, status);
    else countInit(counts, status);
  }
  for (const container of pod.spec?.containers ?? []) countApp(counts, byName.get(container.name));
  return phaseFrom(pod, counts, podIsTerminal);
}

function countInit(counts: PhaseCounts, status: ContainerStatus | undefined): void {
  const state = status?.state;
  if (state?.running) counts.pendingInit++;
  else if (state?.terminated) {
    if (state.terminated.exitCode !== 0) counts.failedInit++;
  } else if (state?.waiting && status?.lastState?.terminated) {
    // Waiting to be restarted after a run: its last exit code decides.
    if (status.lastState.terminated.exitCode !== 0) counts.failedInit++;
  } else counts.pendingInit++;
}

/** Stopped sidecars count as neither running nor stopped, as upstream. */
function countSidecar(counts: PhaseCounts, status: ContainerStatus | undefined): void {
  const state = status?.state;
  if (!status) counts.unknown++;
  else if (state?.running) {
    if (!status.started) counts.pendingSidecars++;
    counts.running++;
  } else if (state?.terminated) {
    // neither
  } else if (state?.waiting) {
    if (!status.lastState?.terminated) {
      counts.pendingSidecars++;
      counts.waiting++;
    }
  } else {
    counts.pendingSidecars++;
    counts.unknown++;
  }
}

function countApp(counts: PhaseCounts, status: ContainerStatus | undefined): void {
  const state = status?.state;
  if (!status) counts.unknown++;
  else if (state?.running) counts.running++;
  else if (state?.terminated) {
    counts.stopped++;
    if (state.terminated.exitCode === 0) counts.succeeded++;
  } else if (state?.waiting) {
    // Waiting after a previous run is a restart in progress, not a container yet to start.
    if (status.lastState?.terminated) counts.stopped++;
    else counts.waiting++;
  } else counts.unknown++;
}

function phaseFrom(pod: Pod, c: PhaseCounts, podIsTerminal: boolean): PodPhase {
  const policy = podRestartPolicy(pod);
  if (c.failedInit > 0 && policy === 'Never') return 'Failed';
  const sidecarsNotStarted = c.pendingSidecars > 0 && c.running + c.unknown + c.waiting + c.stopped === 0;
  if (c.pendingInit > 0 || sidecarsNotStarted) return 'Pending';
  if (c.waiting > 0) return 'Pending';
  if (c.running > 0 && c.unknown === 0) return 'Running';
  if (c.running === 0 && c.stopped > 0 && c.unknown === 0) {
    // A terminal pod's containers will not restart, whatever the policy.
    // Upstream does not yet give static pods a terminal phase on termination (its TODO #116484).
    if (podIsTerminal && !isStaticPod(pod)) return c.stopped === c.succeeded ? 'Succeeded' : 'Failed';
    if (policy === 'Always') return 'Running';
    if (c.stopped === c.succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

