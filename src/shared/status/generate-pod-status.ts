// The API status of a pod from the runtime's view of it, as upstream's
// Kubelet.generateAPIPodStatus (kubelet_pods.go) with the parts of the status manager
// that make a status continuous over time (startTime, condition transition times).
// Pure: both a shard (after a sync) and the main thread can call it.
import { podSandboxChanged } from '../kuberuntime/sandbox-changed.js';
import { podQOSClass } from '../qos.js';
import type { PodProbeResults } from '../prober/probe-results.js';
import type { RuntimePodStatus } from '../runtime-pod.js';
import type { ContainerStatus, Pod, PodCondition, PodStatus } from '../types.js';
import { apiTime, convertToAPIContainerStatuses, type WaitingReasons } from './container-statuses.js';
import {
  containersReadyCondition,
  KUBELET_CONDITION_TYPES,
  podInitializedCondition,
  podReadyCondition,
  podReadyToStartContainersCondition,
  setTransitionTimes,
  toDate,
} from './pod-conditions.js';
import { getPhase, type PodPhase } from './pod-phase.js';
import { observedGenerationOf, withObservedGeneration } from './observed-generation.js';

/** Prefix of container IDs when the runtime's name is not known. */
export const DEFAULT_RUNTIME_NAME = 'containerd';

export interface StatusContext {
  nowMs: number;
  hostIP: string;
  /** The node's IPs, primary first, for dual-stack nodes; defaults to [hostIP]. */
  hostIPs?: string[];
  /** Waiting reasons from the last sync, per container name (ErrImagePull, ImagePullBackOff, CrashLoopBackOff, CreateContainerConfigError, ...). */
  waitingReasons: WaitingReasons;
  /** For startTime and lastTransitionTime continuity; the pod's own status is used when absent. */
  previous?: PodStatus;
  /** Runtime name for container IDs (`containerd://<id>`); DEFAULT_RUNTIME_NAME when absent. */
  runtimeName?: string;
  /** The pod worker has finished with the pod: its containers will not restart (upstream's podIsTerminal). */
  podIsTerminal?: boolean;
  /** Rejected or otherwise failed outside the runtime (admission, eviction): phase Failed with this reason. */
  failure?: { reason: string; message: string };
  /** The shard's probe results for the pod's containers (readiness and startup drive ready and started). */
  probes?: PodProbeResults;
}

const TERMINAL_PHASES: ReadonlySet<string> = new Set(['Succeeded', 'Failed']);

/** generateAPIPodStatus. */
export function generatePodStatus(pod: Pod, runtime: RuntimePodStatus, ctx: StatusContext): PodStatus {
  const old = ctx.previous ?? pod.status ?? {};
  const base = {
    pod,
    runtime,
    waitingReasons: ctx.waitingReasons,
    runtimeName: ctx.runtimeName || DEFAULT_RUNTIME_NAME,
    probes: ctx.probes,
  };
  const initSpecs = pod.spec?.initContainers ?? [];
  const initContainerStatuses = convertToAPIContainerStatuses({
    ...base,
    specs: initSpecs,
    previous: old.initContainerStatuses ?? [],
    isInit: true,
  });
  const containerStatuses = convertToAPIContainerStatuses({
    ...base,
    specs: pod.spec?.containers ?? [],
    previous: old.containerStatuses ?? [],
    isInit: false,
  });
  const all = [...initContainerStatuses, ...containerStatuses];
  const phase = resolvePhase(pod, old, all, ctx);
  const hostIPs = ctx.hostIPs ?? (ctx.hostIP ? [ctx.hostIP] : []);
  const podIPs = podIPsFor(pod, runtime, old, hostIPs, phase.phase);
  const generation = observedGenerationOf(pod);
  const status: PodStatus = {
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    phase: phase.phase,
    conditions: buildConditions(pod, runtime, old, all, phase.phase),
    qosClass: podQOSClass(pod),
    startTime: toDate(old.startTime) ?? toDate(pod.status?.startTime) ?? apiTime(ctx.nowMs),
    containerStatuses,
  };
  if (phase.reason) status.reason = phase.reason;
  if (phase.message) status.message = phase.message;
  if (hostIPs.length > 0) {
    status.hostIP = hostIPs[0];
    status.hostIPs = hostIPs.map((ip) => ({ ip }));
  }
  if (podIPs.length > 0) {
    status.podIP = podIPs[0];
    status.podIPs = podIPs.map((ip) => ({ ip }));
  }
  if (initSpecs.length > 0) status.initContainerStatuses = initContainerStatuses;
  setTransitionTimes(status.conditions ?? [], old, apiTime(ctx.nowMs) ?? new Date(ctx.nowMs));
  return status;
}

interface PhaseDecision {
  phase: PodPhase;
  reason?: string;
  message?: string;
}

/** getPhase, then upstream's merge with the previous and API phases: a terminal phase is never left. */
function resolvePhase(pod: Pod, old: PodStatus, all: ContainerStatus[], ctx: StatusContext): PhaseDecision {
  if (ctx.failure) return { phase: 'Failed', reason: ctx.failure.reason, message: ctx.failure.message };
  let phase: PodPhase = getPhase(pod, all, ctx.podIsTerminal === true);
  const apiPhase = pod.status?.phase;
  if (!TERMINAL_PHASES.has(phase)) {
    if (old.phase && TERMINAL_PHASES.has(old.phase)) phase = old.phase as PodPhase;
    else if (apiPhase && TERMINAL_PHASES.has(apiPhase)) phase = apiPhase as PodPhase;
  }
  // The API server shows a terminal phase: no transition out of it, not even to the other one.
  if (apiPhase && TERMINAL_PHASES.has(apiPhase)) phase = apiPhase as PodPhase;
  if (phase !== old.phase) return { phase };
  // The reason and message belong to the phase: kept while it lasts.
  return {
    phase,
    reason: old.reason || pod.status?.reason,
    message: old.message || pod.status?.message,
  };
}

/** Conditions owned by others are kept; the kubelet's are recomputed, in upstream's order. */
function buildConditions(
  pod: Pod,
  runtime: RuntimePodStatus,
  old: PodStatus,
  all: ContainerStatus[],
  phase: PodPhase,
): PodCondition[] {
  const spec = pod.spec ?? { containers: [] };
  const conditions: PodCondition[] = (pod.status?.conditions ?? [])
    .filter((c) => !KUBELET_CONDITION_TYPES.has(c.type) && c.type !== 'DisruptionTarget')
    .map((c) => ({ ...c }));
  // DisruptionTarget is set once, at eviction, and carried from the previous status.
  const disruption = (old.conditions ?? pod.status?.conditions ?? []).find((c) => c.type === 'DisruptionTarget');
  if (disruption) conditions.push({ ...disruption });
  const sandboxUsable = !podSandboxChanged(pod, runtime).createSandbox;
  const generation = observedGenerationOf(pod);
  const push = (condition: PodCondition) => conditions.push(withObservedGeneration(condition, generation));
  push(podReadyToStartContainersCondition(sandboxUsable));
  push(podInitializedCondition(spec, all, phase));
  push(podReadyCondition(spec, conditions, all, phase));
  push(containersReadyCondition(spec, all, phase));
  push({ type: 'PodScheduled', status: 'True' });
  return conditions;
}

/**
 * Pod IPs come from the newest sandbox while it is ready; a hostNetwork pod has the
 * node's IPs. A finished pod whose sandbox is gone keeps the IPs it had.
 */
function podIPsFor(pod: Pod, runtime: RuntimePodStatus, old: PodStatus, hostIPs: string[], phase: PodPhase): string[] {
  const newest = runtime.sandboxes[0];
  const fromSandbox = newest?.state === 'ready' ? newest.ips.filter((ip) => ip !== '') : [];
  if (fromSandbox.length > 0) return fromSandbox;
  if (pod.spec?.hostNetwork) return hostIPs;
  if (TERMINAL_PHASES.has(phase)) return (old.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => !!ip);
  return [];
}
