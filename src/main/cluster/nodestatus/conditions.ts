// The node conditions the kubelet owns, as upstream's nodestatus setters
// (MemoryPressureCondition, DiskPressureCondition, PIDPressureCondition,
// ReadyCondition) compute them: every heartbeat refreshes lastHeartbeatTime,
// lastTransitionTime moves only when the status flips, and Ready stays last.
// Conditions the kubelet does not own (NetworkUnavailable, set by a network
// plugin) are kept as they were.
import type { V1NodeCondition } from '@kubernetes/client-node';

export interface NodeHealth {
  runtimeReady: boolean;
  /** Why the runtime is not ready (runtimeNotReadyMessage, RUNTIME_DOWN_MESSAGE, …); read only when !runtimeReady. */
  runtimeMessage: string;
  networkReady: boolean;
  /** Why the network is not ready (networkNotReadyMessage, …); read only when !networkReady. */
  networkMessage: string;
  memoryPressure: boolean;
  diskPressure: boolean;
  pidPressure: boolean;
  /** The node shutdown manager saw PrepareForShutdown(true) (upstream's ShutdownStatus). */
  shuttingDown: boolean;
}

/** A CRI RuntimeCondition (RuntimeReady / NetworkReady) as the Status call returns it. */
export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason?: string;
  message?: string;
}

export const READY_REASON = 'KubeletReady';
export const READY_MESSAGE = 'kubelet is posting ready status';
export const NOT_READY_REASON = 'KubeletNotReady';
/** runtimeState before the first successful runtime status check. */
export const RUNTIME_STATUS_NOT_CHECKED_MESSAGE = 'container runtime status check may not have completed yet';
/** runtimeState once the last successful check is older than the runtime sync threshold. */
export const RUNTIME_DOWN_MESSAGE = 'container runtime is down';
/** The node shutdown manager's ShutdownStatus error, once the node is shutting down. */
export const NODE_SHUTTING_DOWN_MESSAGE = 'node is shutting down';
/** runtimeState's network error before the runtime first reported NetworkReady. */
export const NETWORK_STATE_UNKNOWN_MESSAGE = 'network state unknown';

interface PressureStrings {
  type: string;
  trueReason: string;
  trueMessage: string;
  falseReason: string;
  falseMessage: string;
}

const MEMORY_PRESSURE: PressureStrings = {
  type: 'MemoryPressure',
  trueReason: 'KubeletHasInsufficientMemory',
  trueMessage: 'kubelet has insufficient memory available',
  falseReason: 'KubeletHasSufficientMemory',
  falseMessage: 'kubelet has sufficient memory available',
};

const DISK_PRESSURE: PressureStrings = {
  type: 'DiskPressure',
  trueReason: 'KubeletHasDiskPressure',
  trueMessage: 'kubelet has disk pressure',
  falseReason: 'KubeletHasNoDiskPressure',
  falseMessage: 'kubelet has no disk pressure',
};

const PID_PRESSURE: PressureStrings = {
  type: 'PIDPressure',
  trueReason: 'KubeletHasInsufficientPID',
  trueMessage: 'kubelet has insufficient PID available',
  falseReason: 'KubeletHasSufficientPID',
  falseMessage: 'kubelet has sufficient PID available',
};

/** The condition types this module owns, in upstream's setter order (Ready last). */
export const KUBELET_CONDITION_TYPES = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'] as const;

/** kubecontainer.RuntimeCondition.String(): "NetworkReady=false reason:X message:Y", or "<nil>". */
export function formatRuntimeCondition(condition: RuntimeCondition | undefined): string {
  if (!condition) return '<nil>';
  return `${condition.type}=${condition.status} reason:${condition.reason ?? ''} message:${condition.message ?? ''}`;
}

/** updateRuntimeUp's runtime error for a missing or false RuntimeReady condition. */
export function runtimeNotReadyMessage(condition: RuntimeCondition | undefined): string {
  return `container runtime not ready: ${formatRuntimeCondition(condition)}`;
}

/** updateRuntimeUp's network error for a missing or false NetworkReady condition. */
export function networkNotReadyMessage(condition: RuntimeCondition | undefined): string {
  return `container runtime network not ready: ${formatRuntimeCondition(condition)}`;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several as "[a, b]". */
export function aggregateMessages(messages: string[]): string {
  const distinct = [...new Set(messages.filter((message) => message !== ''))];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}

/** metav1.Time keeps whole seconds on the wire; keeping them here too makes local and stored copies equal. */
export function wholeSeconds(time: Date): Date {
  return new Date(Math.floor(time.getTime() / 1000) * 1000);
}

/** The next pressure condition: reason and message change only with the status (the pressure setters). */
function pressureCondition(
  previous: V1NodeCondition | undefined,
  strings: PressureStrings,
  underPressure: boolean,
  now: Date,
): V1NodeCondition {
  const status = underPressure ? 'True' : 'False';
  if (previous && previous.status === status) {
    return { ...previous, lastHeartbeatTime: now };
  }
  return {
    type: strings.type,
    status,
    reason: underPressure ? strings.trueReason : strings.falseReason,
    message: underPressure ? strings.trueMessage : strings.falseMessage,
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  };
}

/** The next Ready condition (ReadyCondition): runtime errors first, then network errors, then the node shutdown manager's. */
function readyCondition(previous: V1NodeCondition | undefined, health: NodeHealth, now: Date): V1NodeCondition {
  const errors: string[] = [];
  if (!health.runtimeReady) errors.push(health.runtimeMessage || RUNTIME_STATUS_NOT_CHECKED_MESSAGE);
  if (!health.networkReady) errors.push(health.networkMessage || NETWORK_STATE_UNKNOWN_MESSAGE);
  if (health.shuttingDown) errors.push(NODE_SHUTTING_DOWN_MESSAGE);
  const ready = errors.length === 0;
  const status = ready ? 'True' : 'False';
  return {
    type: 'Ready',
    status,
    reason: ready ? READY_REASON : NOT_READY_REASON,
    message: ready ? READY_MESSAGE : aggregateMessages(errors),
    lastHeartbeatTime: now,
    lastTransitionTime: previous && previous.status === status && previous.lastTransitionTime ? previous.lastTransitionTime : now,
  };
}

/**
 * The node's conditions after one status computation. Existing conditions keep
 * their place; missing ones are appended in upstream's order; Ready is moved
 * last if it is new. Times are whole seconds (see wholeSeconds).
 */
export function nodeConditions(previous: V1NodeCondition[] | undefined, health: NodeHealth, now: Date): V1NodeCondition[] {
  const heartbeat = wholeSeconds(now);
  const previousByType = new Map((previous ?? []).map((condition) => [condition.type, condition]));
  const nextByType = new Map<string, V1NodeCondition>([
    ['MemoryPressure', pressureCondition(previousByType.get('MemoryPressure'), MEMORY_PRESSURE, health.memoryPressure, heartbeat)],
    ['DiskPressure', pressureCondition(previousByType.get('DiskPressure'), DISK_PRESSURE, health.diskPressure, heartbeat)],
    ['PIDPressure', pressureCondition(previousByType.get('PIDPressure'), PID_PRESSURE, health.pidPressure, heartbeat)],
    ['Ready', readyCondition(previousByType.get('Ready'), health, heartbeat)],
  ]);
  const conditions = (previous ?? []).map((condition) => nextByType.get(condition.type) ?? condition);
  for (const type of KUBELET_CONDITION_TYPES) {
    if (!previousByType.has(type)) conditions.push(nextByType.get(type)!);
  }
  return conditions;
}

/** A node event the kubelet records when one of its conditions flips (recordNodeStatusEvent). */
export interface NodeConditionEvent {
  type: 'Normal';
  reason: string;
  message: string;
}

/** The event reason for a condition's new status, as the setters name them. */
function transitionReason(condition: V1NodeCondition): string | undefined {
  const isTrue = condition.status === 'True';
  switch (condition.type) {
    case 'Ready':
      return isTrue ? 'NodeReady' : 'NodeNotReady';
    case 'MemoryPressure':
      return isTrue ? 'NodeHasInsufficientMemory' : 'NodeHasSufficientMemory';
    case 'DiskPressure':
      return isTrue ? 'NodeHasDiskPressure' : 'NodeHasNoDiskPressure';
    case 'PIDPressure':
      return isTrue ? 'NodeHasInsufficientPID' : 'NodeHasSufficientPID';
    default:
      return undefined;
  }
}

/**
 * Events for conditions whose status changed between two computations, with
 * upstream's message "Node <name> status is now: <reason>". As upstream, a new
 * pressure condition is an event and a first Ready condition is not.
 */
export function nodeConditionEvents(
  nodeName: string,
  previous: V1NodeCondition[] | undefined,
  next: V1NodeCondition[],
): NodeConditionEvent[] {
  const previousByType = new Map((previous ?? []).map((condition) => [condition.type, condition]));
  const events: NodeConditionEvent[] = [];
  for (const condition of next) {
    const before = previousByType.get(condition.type);
    if (before?.status === condition.status) continue;
    if (condition.type === 'Ready' && !before) continue;
    const reason = transitionReason(condition);
    if (reason) events.push({ type: 'Normal', reason, message: `Node ${nodeName} status is now: ${reason}` });
  }
  return events;
}
