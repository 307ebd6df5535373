// The kubelet-owned pod conditions, as upstream's pkg/kubelet/status/generate.go,
// and the lastTransitionTime rule of the status manager (updateLastTransitionTime).
import { isRestartableInitContainer } from '../kuberuntime/container-helpers.js';
import type { Container, ContainerStatus, PodCondition, PodSpec, PodStatus } from '../types.js';
import type { PodPhase } from './pod-phase.js';

// Condition reasons (status/generate.go).
export const UNKNOWN_CONTAINER_STATUSES = 'UnknownContainerStatuses';
export const POD_COMPLETED = 'PodCompleted';
export const POD_FAILED = 'PodFailed';
export const CONTAINERS_NOT_READY = 'ContainersNotReady';
export const CONTAINERS_NOT_INITIALIZED = 'ContainersNotInitialized';
export const READINESS_GATES_NOT_READY = 'ReadinessGatesNotReady';

/** Condition types the kubelet owns (kubetypes.PodConditionsByKubelet plus PodReadyToStartContainers). */
export const KUBELET_CONDITION_TYPES: ReadonlySet<string> = new Set([
  'PodScheduled',
  'Ready',
  'Initialized',
  'ContainersReady',
  'PodResizeInProgress',
  'PodResizePending',
  'PodReadyToStartContainers',
]);

/** A name list as Go's %s prints a []string: [a b]. */
function goList(names: string[]): string {
  return `[${names.join(' ')}]`;
}

function condition(type: string, ok: boolean, reason?: string, message?: string): PodCondition {
  const result: PodCondition = { type, status: ok ? 'True' : 'False' };
  if (reason) result.reason = reason;
  if (message) result.message = message;
  return result;
}

/** As GeneratePodReadyToStartContainersCondition: true once a usable sandbox with networking exists. */
export function podReadyToStartContainersCondition(sandboxReady: boolean): PodCondition {
  return condition('PodReadyToStartContainers', sandboxReady);
}

/** As GenerateContainersReadyCondition. */
export function containersReadyCondition(spec: PodSpec, statuses: ContainerStatus[], phase: PodPhase): PodCondition {
  const byName = new Map(statuses.map((s) => [s.name, s]));
  const unknown: string[] = [];
  const unready: string[] = [];
  const counted: Container[] = [...(spec.initContainers ?? []).filter(isRestartableInitContainer), ...spec.containers];
  for (const container of counted) {
    const status = byName.get(container.name);
    if (!status) unknown.push(container.name);
    else if (!status.ready) unready.push(container.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return condition('ContainersReady', false, POD_COMPLETED);
  // A failed pod's containers may still be terminating: never ready.
  if (phase === 'Failed') return condition('ContainersReady', false, POD_FAILED);
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) return condition('ContainersReady', false, CONTAINERS_NOT_READY, messages.join(', '));
  return condition('ContainersReady', true);
}

/** As GeneratePodReadyCondition: ContainersReady, then the pod's readiness gates. */
export function podReadyCondition(
  spec: PodSpec,
  otherConditions: PodCondition[],
  statuses: ContainerStatus[],
  phase: PodPhase,
): PodCondition {
  const containersReady = containersReadyCondition(spec, statuses, phase);
  if (containersReady.status !== 'True') {
    return condition('Ready', false, containersReady.reason, containersReady.message);
  }
  const messages: string[] = [];
  for (const gate of spec.readinessGates ?? []) {
    const found = otherConditions.find((c) => c.type === gate.conditionType);
    if (!found) {
      messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    } else if (found.status !== 'True') {
      messages.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${found.status}`);
    }
  }
  if (messages.length > 0) return condition('Ready', false, READINESS_GATES_NOT_READY, messages.join(', '));
  return condition('Ready', true);
}

/** As GeneratePodInitializedCondition. */
export function podInitializedCondition(spec: PodSpec, statuses: ContainerStatus[], phase: PodPhase): PodCondition {
  const byName = new Map(statuses.map((s) => [s.name, s]));
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const container of spec.initContainers ?? []) {
    const status = byName.get(container.name);
    if (!status) unknown.push(container.name);
    else if (!initContainerInitialized(container, status)) incomplete.push(container.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return condition('Initialized', true, POD_COMPLETED);
  // An app container that ran means initialization finished, even if a sidecar restarts now.
  if (anyAppContainerStarted(spec, statuses)) return condition('Initialized', true);
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (messages.length > 0) return condition('Initialized', false, CONTAINERS_NOT_INITIALIZED, messages.join(', '));
  return condition('Initialized', true);
}

function initContainerInitialized(container: Container, status: ContainerStatus): boolean {
  return isRestartableInitContainer(container) ? status.started === true : status.ready;
}

/** As kubecontainer.HasAnyRegularContainerStarted. */
function anyAppContainerStarted(spec: PodSpec, statuses: ContainerStatus[]): boolean {
  const appNames = new Set(spec.containers.map((c) => c.name));
  return statuses.some((s) => appNames.has(s.name) && (s.state?.running !== undefined || s.state?.terminated !== undefined));
}

/**
 * The status manager's updateLastTransitionTime: a kubelet condition keeps the
 * previous transition time while its status is unchanged, else takes now.
 */
export function setTransitionTimes(conditions: PodCondition[], previous: PodStatus | undefined, now: Date): void {
  for (const current of conditions) {
    if (!KUBELET_CONDITION_TYPES.has(current.type)) continue;
    const old = previous?.conditions?.find((c) => c.type === current.type);
    const kept = old && old.status === current.status ? toDate(old.lastTransitionTime) : undefined;
    current.lastTransitionTime = kept ?? now;
  }
}

/** Times from the API arrive as RFC 3339 strings, times from this code as Dates. */
export function toDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
