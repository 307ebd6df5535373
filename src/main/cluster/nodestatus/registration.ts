// Registering with the API server when the Node may already exist, as
// upstream's registerWithAPIServer / tryRegisterWithAPIServer: create the
// initial node; on AlreadyExists, reconcile the existing one (default labels,
// the attach/detach annotation, huge page resources) and patch it only when
// something changed. The calls themselves belong to the caller.
import type { V1Node } from '@kubernetes/client-node';
import { exponentialDelayMs } from '../../../shared/backoff.js';
import { ANNOTATION_CONTROLLER_MANAGED_ATTACH } from './node-object.js';

/** First wait before a registration attempt; doubled after each one (registerWithAPIServer). */
export const REGISTER_INITIAL_BACKOFF_MS = 100;
/** Longest wait between registration attempts. */
export const REGISTER_MAX_BACKOFF_MS = 7_000;

/**
 * Labels the kubelet owns on an existing node (updateDefaultLabels): set to
 * the initial node's value when it has one, removed when that value is empty.
 */
export const DEFAULT_NODE_LABELS: readonly string[] = [
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
];

/** Wait before registration attempt `attempt` (0-based): 100 ms, 200 ms, … capped at 7 s. */
export function registrationBackoffMs(attempt: number): number {
  return exponentialDelayMs(attempt, { initialMs: REGISTER_INITIAL_BACKOFF_MS, multiplier: 2, maxMs: REGISTER_MAX_BACKOFF_MS });
}

function reconcileDefaultLabels(initial: V1Node, existing: V1Node): boolean {
  const initialLabels = initial.metadata?.labels ?? {};
  const labels = { ...(existing.metadata?.labels ?? {}) };
  let changed = false;
  for (const label of DEFAULT_NODE_LABELS) {
    if (!(label in initialLabels)) continue;
    if (labels[label] !== initialLabels[label]) {
      labels[label] = initialLabels[label];
      changed = true;
    }
    if (labels[label] === '') delete labels[label];
  }
  existing.metadata = { ...existing.metadata, labels };
  return changed;
}

function reconcileAttachAnnotation(initial: V1Node, existing: V1Node): boolean {
  const wanted = initial.metadata?.annotations?.[ANNOTATION_CONTROLLER_MANAGED_ATTACH];
  const annotations = { ...(existing.metadata?.annotations ?? {}) };
  if (annotations[ANNOTATION_CONTROLLER_MANAGED_ATTACH] === wanted) return false;
  if (wanted === undefined) delete annotations[ANNOTATION_CONTROLLER_MANAGED_ATTACH];
  else annotations[ANNOTATION_CONTROLLER_MANAGED_ATTACH] = wanted;
  existing.metadata = { ...existing.metadata, annotations };
  return true;
}

/** reconcileHugePageResource: huge page capacity and allocatable follow the machine, stale sizes go. */
function reconcileHugePages(initial: V1Node, existing: V1Node): boolean {
  const wantedCapacity = initial.status?.capacity ?? {};
  const wantedAllocatable = initial.status?.allocatable ?? {};
  const capacity = { ...(existing.status?.capacity ?? {}) };
  const allocatable = { ...(existing.status?.allocatable ?? {}) };
  let changed = false;
  for (const name of new Set([...Object.keys(capacity), ...Object.keys(wantedCapacity)])) {
    if (!name.startsWith('hugepages-')) continue;
    if (!(name in wantedCapacity)) {
      delete capacity[name];
      delete allocatable[name];
      changed = true;
      continue;
    }
    if (capacity[name] !== wantedCapacity[name] || allocatable[name] !== wantedAllocatable[name]) {
      capacity[name] = wantedCapacity[name];
      allocatable[name] = wantedAllocatable[name] ?? wantedCapacity[name];
      changed = true;
    }
  }
  if (changed) existing.status = { ...existing.status, capacity, allocatable };
  return changed;
}

/**
 * The existing node reconciled with the one this kubelet would create, and
 * whether it must be patched. `existing` is not modified.
 */
export function reconcileExistingNode(initial: V1Node, existing: V1Node): { node: V1Node; changed: boolean } {
  const node: V1Node = structuredClone(existing);
  let changed = reconcileAttachAnnotation(initial, node);
  changed = reconcileDefaultLabels(initial, node) || changed;
  changed = reconcileHugePages(initial, node) || changed;
  return { node, changed };
}
