// When a pod status is news for the API server, and the patch that brings the
// server's copy to it. As upstream's status manager: isPodStatusByKubeletEqual
// decides whether a status needs a write (the kubelet's own conditions compared by
// type on status, reason and message, so neither their order nor their probe and
// transition times count; everything else compared semantically), and
// statusutil.PatchPodStatus sends a two-way strategic merge patch from the
// server's status, so that a field the kubelet stopped setting (a condition's
// reason once it is True, a pod IP that went away) is removed, not left behind.
import type { PodCondition, PodStatus } from '../../shared/types.js';
import { KUBELET_CONDITION_TYPES } from '../../shared/status/pod-conditions.js';

/** Conditions whose type the kubelet shares with others (kubetypes.PodConditionSharedByKubelet). */
const SHARED_CONDITION_TYPES: ReadonlySet<string> = new Set(['DisruptionTarget']);
/** Status lists the API server merges by key (patchStrategy=merge in core/v1), and their keys. */
const MERGED_LIST_KEYS: Record<string, string> = { conditions: 'type', podIPs: 'ip', hostIPs: 'ip' };
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * A status as the API server serialises it: times as RFC 3339 seconds whatever
 * their type here (Date from our generator, string from a watch), absent, null,
 * empty lists and empty objects all alike (apimachinery's semantic equality treats
 * nil and empty the same), keys in a stable order.
 */
export function canonicalStatus(value: unknown): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString().replace(/\.000Z$/, 'Z');
  if (typeof value === 'string') return RFC3339.test(value) ? canonicalStatus(new Date(value)) : value;
  if (typeof value !== 'object') return value as Json;
  if (Array.isArray(value)) {
    const items = value.map((item) => canonicalStatus(item) ?? null);
    return items.length > 0 ? items : undefined;
  }
  const result: JsonObject = {};
  for (const key of Object.keys(value).sort()) {
    const canonical = canonicalStatus((value as Record<string, unknown>)[key]);
    if (canonical !== undefined) result[key] = canonical;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonicalStatus(a)) === JSON.stringify(canonicalStatus(b));
}

function kubeletConditions(status: PodStatus): Map<string, PodCondition> {
  const byType = new Map<string, PodCondition>();
  for (const c of status.conditions ?? []) {
    if (KUBELET_CONDITION_TYPES.has(c.type) || SHARED_CONDITION_TYPES.has(c.type)) byType.set(c.type, c);
  }
  return byType;
}

/** isPodStatusByKubeletEqual: would writing `next` change nothing the kubelet owns in `old`? */
export function isPodStatusByKubeletEqual(old: PodStatus, next: PodStatus): boolean {
  const oldConditions = kubeletConditions(old);
  const newConditions = kubeletConditions(next);
  if (oldConditions.size !== newConditions.size) return false;
  for (const [type, c] of newConditions) {
    const before = oldConditions.get(type);
    if (!before || before.status !== c.status || (before.reason ?? '') !== (c.reason ?? '') || (before.message ?? '') !== (c.message ?? '')) {
      return false;
    }
  }
  // The rest of the status, with the conditions taken from the new one as upstream does.
  return sameJson({ ...old, conditions: next.conditions }, next);
}

/** Nulls for what `old` has and `next` lacks, so a strategic merge removes it. */
function removals(old: JsonObject, next: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(old)) if (!(key in next)) patch[key] = null;
  return patch;
}

/**
 * A merged list: each new item with nulls for the keys its old self had; with
 * `deleteGone`, old items the new list lacks are deleted (an IP the pod no longer
 * has). Conditions are never deleted: others own some, and the kubelet drops none.
 */
function mergedListPatch(oldItems: Json[], newItems: Json[], mergeKey: string, deleteGone: boolean): Json[] {
  const asObjects = (items: Json[]) => items.filter((item): item is JsonObject => typeof item === 'object' && item !== null && !Array.isArray(item));
  const oldByKey = new Map(asObjects(oldItems).map((item) => [item[mergeKey], item]));
  const newKeys = new Set(asObjects(newItems).map((item) => item[mergeKey]));
  const patch: Json[] = asObjects(newItems).map((item) => {
    const before = oldByKey.get(item[mergeKey]);
    return before ? { ...removals(before, item), ...item } : item;
  });
  if (!deleteGone) return patch;
  for (const [key] of oldByKey) if (!newKeys.has(key)) patch.push({ [mergeKey]: key, $patch: 'delete' });
  return patch;
}

/**
 * The strategic merge patch body of pods/status that turns the server's `old`
 * status into `next` (the UID travels as a precondition, as upstream's patch).
 */
export function podStatusPatch(uid: string, old: PodStatus, next: PodStatus): Record<string, unknown> {
  const oldJson = (canonicalStatus(old) ?? {}) as JsonObject;
  const newJson = (canonicalStatus(next) ?? {}) as JsonObject;
  const status: JsonObject = { ...removals(oldJson, newJson), ...newJson };
  for (const [field, mergeKey] of Object.entries(MERGED_LIST_KEYS)) {
    const oldItems = oldJson[field];
    const newItems = newJson[field];
    if (!Array.isArray(oldItems) || !Array.isArray(newItems)) continue;
    status[field] = mergedListPatch(oldItems, newItems, mergeKey, field !== 'conditions');
  }
  return { metadata: { uid }, status };
}
