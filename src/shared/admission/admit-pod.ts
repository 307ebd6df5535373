// The kubelet's predicate admission, as upstream's predicateAdmitHandler.Admit
// (pkg/kubelet/lifecycle/predicate.go) with scheduler.AdmissionCheck and the
// CriticalPodAdmissionHandler's rule for critical pods. Checks run in upstream's order
// and the first failure is reported:
//   OS label / spec.os → supplementalGroupsPolicy Strict on a runtime without it → pods, cpu, memory, ephemeral-storage (noderesources.Fits)
//   → NodeAffinity → NodeName → NodePorts → TaintToleration (NoExecute only, not for static pods).
import { isCriticalPod } from '../qos.js';
import { podUid, type Pod } from '../types.js';
import { hostPortsFit } from './host-ports.js';
import { usageOfPods, type NodeUsage } from './node-usage.js';
import { requiredNodeAffinityMatches } from './node-affinity.js';
import { podRequests, type ResourceVector } from './pod-requests.js';
import { findUntoleratedTaint, TAINT_EFFECT_NO_EXECUTE, type NodeTaint } from './taints.js';
import { isStaticPod } from '../pod-kinds.js';
import { admitSupplementalGroupsPolicy } from './supplemental-groups-policy.js';

/** The node's status.features, as upstream's NodeFeatures setter fills them from the runtime. */
export interface NodeFeaturesForAdmission {
  supplementalGroupsPolicy: boolean;
}

export interface NodeInfoForAdmission {
  name: string;
  /** Absent: no features reported, so none supported (upstream's ptr.Deref to false). */
  features?: NodeFeaturesForAdmission;
  labels: Record<string, string>;
  taints: NodeTaint[];
  /** ephemeralStorageBytes absent: the node reports none, and the check is skipped. */
  allocatable: { cpuMillis: number; memoryBytes: number; pods: number; ephemeralStorageBytes?: number };
}

export type AdmitResult = { admit: true } | { admit: false; reason: string; message: string };

// Reasons, as predicate.go's constants and the scheduler plugins' names.
export const REASON_OUT_OF_PODS = 'OutOfpods';
export const REASON_OUT_OF_CPU = 'OutOfcpu';
export const REASON_OUT_OF_MEMORY = 'OutOfmemory';
export const REASON_OUT_OF_EPHEMERAL_STORAGE = 'OutOfephemeral-storage';
export const REASON_NODE_AFFINITY = 'NodeAffinity';
export const REASON_NODE_NAME = 'NodeName';
export const REASON_NODE_PORTS = 'NodePorts';
export const REASON_TAINT_TOLERATION = 'TaintToleration';
export const REASON_POD_OS_SELECTOR_MISMATCH = 'PodOSSelectorNodeLabelDoesNotMatch';
export const REASON_POD_OS_NOT_SUPPORTED = 'PodOSNotSupported';
export const REASON_UNEXPECTED_ADMISSION_ERROR = 'UnexpectedAdmissionError';

// The plugins' failure descriptions (nodeaffinity.ErrReasonPod, nodename.ErrReason, …).
const NODE_AFFINITY_FAILURE = "node(s) didn't match Pod's node affinity/selector";
const NODE_NAME_FAILURE = "node(s) didn't match the requested node name";
const NODE_PORTS_FAILURE = "node(s) didn't have free ports for the requested pod ports";
const TAINT_TOLERATION_FAILURE = "node(s) had taints that the pod didn't tolerate";

const OS_LABEL = 'kubernetes.io/os';

/** Go's runtime.GOOS for this process: what the kubelet compares pod OS fields against. */
export const RUNTIME_OS = process.platform === 'win32' ? 'windows' : process.platform;

/** One failed check; `resource` is set for upstream's InsufficientResourceError. */
interface AdmitFailure {
  reason: string;
  message: string;
  resource: boolean;
}

/** As InsufficientResourceError.Error(). */
function insufficient(name: string, requested: number, used: number, capacity: number): AdmitFailure {
  return {
    reason: `OutOf${name}`,
    message: `Node didn't have enough resource: ${name}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
    resource: true,
  };
}

/** As PredicateFailureError.Error(). */
function predicateFailure(predicate: string, description: string): AdmitFailure {
  return { reason: predicate, message: `Predicate ${predicate} failed: ${description}`, resource: false };
}


/** The checks that come before the node info upstream, and that preemption cannot help. */
function checkPodOS(pod: Pod): AdmitResult | undefined {
  // rejectPodAdmissionBasedOnOSSelector: the node's OS label is forced to runtime.GOOS,
  // so only the pod's own label can disagree.
  const podOSLabel = pod.metadata?.labels?.[OS_LABEL];
  if (podOSLabel !== undefined && podOSLabel !== RUNTIME_OS) {
    const message = "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label";
    return { admit: false, reason: REASON_POD_OS_SELECTOR_MISMATCH, message };
  }
  const podOS = pod.spec?.os?.name;
  if (podOS !== undefined && podOS !== RUNTIME_OS) {
    const message = "Failed to admit pod as the OS field doesn't match node OS";
    return { admit: false, reason: REASON_POD_OS_NOT_SUPPORTED, message };
  }
  return undefined;
}

/** As noderesources.fitsRequest: pod count always, each resource only when the pod requests it. */
function checkResources(requested: ResourceVector, usage: NodeUsage, node: NodeInfoForAdmission): AdmitFailure[] {
  const failures: AdmitFailure[] = [];
  const { allocatable } = node;
  const used = usage.requested;
  if (usage.pods + 1 > allocatable.pods) {
    failures.push(insufficient('pods', 1, usage.pods, allocatable.pods));
  }
  if (requested.cpuMillis > 0 && requested.cpuMillis > allocatable.cpuMillis - used.cpuMillis) {
    failures.push(insufficient('cpu', requested.cpuMillis, used.cpuMillis, allocatable.cpuMillis));
  }
  if (requested.memoryBytes > 0 && requested.memoryBytes > allocatable.memoryBytes - used.memoryBytes) {
    failures.push(insufficient('memory', requested.memoryBytes, used.memoryBytes, allocatable.memoryBytes));
  }
  const storage = allocatable.ephemeralStorageBytes;
  const wantedStorage = requested.ephemeralStorageBytes;
  if (storage !== undefined && wantedStorage > 0 && wantedStorage > storage - used.ephemeralStorageBytes) {
    failures.push(insufficient('ephemeral-storage', wantedStorage, used.ephemeralStorageBytes, storage));
  }
  return failures;
}

/** As generalFilter with includeAllFailures: every failing check, in upstream's order. */
function generalFilter(pod: Pod, requested: ResourceVector, usage: NodeUsage, node: NodeInfoForAdmission): AdmitFailure[] {
  const failures = checkResources(requested, usage, node);
  if (!requiredNodeAffinityMatches(pod, node)) {
    failures.push(predicateFailure(REASON_NODE_AFFINITY, NODE_AFFINITY_FAILURE));
  }
  const nodeName = pod.spec?.nodeName;
  if (nodeName && nodeName !== node.name) {
    failures.push(predicateFailure(REASON_NODE_NAME, NODE_NAME_FAILURE));
  }
  if (!hostPortsFit(pod, usage.hostPortTaken)) {
    failures.push(predicateFailure(REASON_NODE_PORTS, NODE_PORTS_FAILURE));
  }
  // The kubelet only enforces NoExecute taints, and never against static pods.
  if (!isStaticPod(pod)) {
    const isNoExecute = (taint: NodeTaint): boolean => taint.effect === TAINT_EFFECT_NO_EXECUTE;
    if (findUntoleratedTaint(node.taints, pod.spec?.tolerations ?? [], isNoExecute)) {
      failures.push(predicateFailure(REASON_TAINT_TOLERATION, TAINT_TOLERATION_FAILURE));
    }
  }
  return failures;
}

/**
 * Whether the node can run `pod` next to `activePods` (the admitted, non-terminal
 * pods; the pod itself is left out by UID), counting them from scratch.
 */
export function admitPod(pod: Pod, activePods: Pod[], node: NodeInfoForAdmission): AdmitResult {
  const uid = podUid(pod);
  const otherPods = activePods.filter((other) => other !== pod && (uid === '' || podUid(other) !== uid));
  return admitPodWithUsage(pod, usageOfPods(otherPods), node);
}

/**
 * Whether the node can run `pod` next to the pods whose usage is `usage` (which must
 * not count the pod itself). Critical pods are never refused for resources:
 * upstream's CriticalPodAdmissionHandler would evict lower-priority pods to make
 * room; shardlet admits them without evicting, so the node may be overcommitted.
 */
export function admitPodWithUsage(pod: Pod, usage: NodeUsage, node: NodeInfoForAdmission): AdmitResult {
  const osRejection = checkPodOS(pod);
  if (osRejection) return osRejection;
  const groupsPolicy = admitSupplementalGroupsPolicy(pod, node.features?.supplementalGroupsPolicy ?? false);
  if (!groupsPolicy.admit) return groupsPolicy;
  let requested: ResourceVector;
  try {
    requested = podRequests(pod);
  } catch (error) {
    const message = `Unexpected error while computing the pod's resource requests: ${(error as Error).message}`;
    return { admit: false, reason: REASON_UNEXPECTED_ADMISSION_ERROR, message };
  }
  let failures = generalFilter(pod, requested, usage, node);
  if (failures.length > 0 && isCriticalPod(pod)) {
    failures = failures.filter((failure) => !failure.resource);
  }
  if (failures.length === 0) return { admit: true };
  const [first] = failures;
  return { admit: false, reason: first.reason, message: first.message };
}
