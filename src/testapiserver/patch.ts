// The three patch types a kubelet and kubectl send. Strategic merge patch follows
// apimachinery's strategicpatch for the lists whose merge keys the kubelet relies
// on (MERGE_KEYS below); every other list is replaced, as a JSON merge patch would.
import { ApiError, badRequest, unsupportedMediaType } from './api-error.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * patchMergeKey of list fields with patchStrategy=merge in core/v1 (by field name).
 * The container status lists have none (they are replaced whole), as upstream.
 */
const MERGE_KEYS: Record<string, string> = {
  conditions: 'type',
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  env: 'name',
  ports: 'containerPort',
  podIPs: 'ip',
  hostIPs: 'ip',
  addresses: 'type',
  imagePullSecrets: 'name',
  tolerations: 'key',
  ownerReferences: 'uid',
  volumesAttached: 'name',
  resourceClaimStatuses: 'name',
};

/** Primitive lists with patchStrategy=merge: the patch's items are added. */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

function mergeKeyedList(original: Json[], patch: Json[], mergeKey: string): Json[] {
  const result = [...original];
  for (const item of patch) {
    if (!isObject(item)) continue;
    const directive = item.$patch;
    const index = result.findIndex((o) => isObject(o) && o[mergeKey] === item[mergeKey]);
    if (directive === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (directive === 'replace') {
      const { $patch: _ignored, ...rest } = item;
      if (index >= 0) result[index] = rest;
      else result.push(rest);
    } else if (index >= 0) result[index] = strategicMerge(result[index], item);
    else result.push(strategicMerge({}, item));
  }
  return result;
}

/** Orders a merged list as `$setElementOrder/<field>` asks; items it does not name keep their place at the end. */
function applyElementOrder(list: Json[], order: Json[], mergeKey: string | undefined): Json[] {
  const keyOfItem = (item: Json): Json => (mergeKey && isObject(item) ? item[mergeKey] : item);
  const orderKeys = order.map((o) => (mergeKey && isObject(o) ? o[mergeKey] : o));
  const ordered: Json[] = [];
  for (const key of orderKeys) {
    const found = list.find((item) => keyOfItem(item) === key);
    if (found !== undefined) ordered.push(found);
  }
  for (const item of list) if (!orderKeys.includes(keyOfItem(item))) ordered.push(item);
  return ordered;
}

function applyDirectives(result: JsonObject, patch: JsonObject): void {
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$deleteFromPrimitiveList/') && Array.isArray(value)) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[field];
      if (Array.isArray(current)) result[field] = current.filter((v) => !value.includes(v));
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$setElementOrder/') && Array.isArray(value)) {
      const field = key.slice('$setElementOrder/'.length);
      const current = result[field];
      if (Array.isArray(current)) result[field] = applyElementOrder(current, value, MERGE_KEYS[field]);
    }
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys);
    for (const key of Object.keys(result)) if (!keep.has(key)) delete result[key];
  }
}

/** Strategic merge patch (apimachinery strategicpatch semantics for the keys above). */
export function strategicMerge(original: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return rest;
  }
  if (patch.$patch === 'delete') return null;
  const result: JsonObject = isObject(original) ? { ...original } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    const current = result[key];
    if (value === null) delete result[key];
    else if (Array.isArray(value) && MERGE_KEYS[key] && Array.isArray(current ?? [])) {
      result[key] = mergeKeyedList((current as Json[] | undefined) ?? [], value, MERGE_KEYS[key]);
    } else if (Array.isArray(value) && MERGED_PRIMITIVE_LISTS.has(key)) {
      const merged = Array.isArray(current) ? [...current] : [];
      for (const v of value) if (!merged.includes(v)) merged.push(v);
      result[key] = merged;
    } else if (isObject(value)) result[key] = strategicMerge(current ?? {}, value);
    else result[key] = value;
  }
  applyDirectives(result, patch);
  return result;
}

interface JsonPatchOp {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`invalid JSON pointer: ${path}`);
  return path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, parts: string[]): { parent: JsonObject | Json[]; last: string } {
  let cursor: Json = doc;
  for (const part of parts.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(cursor) ? cursor[Number(part)] : isObject(cursor) ? cursor[part] : undefined;
    if (next === undefined || next === null || typeof next !== 'object') throw badRequest(`path not found: /${parts.join('/')}`);
    cursor = next;
  }
  if (cursor === null || typeof cursor !== 'object') throw badRequest(`path not found: /${parts.join('/')}`);
  return { parent: cursor, last: parts[parts.length - 1] };
}

function readAt(doc: Json, path: string): Json {
  const parts = pointer(path);
  if (parts.length === 0) return doc;
  const { parent, last } = parentOf(doc, parts);
  const value = Array.isArray(parent) ? parent[Number(last)] : parent[last];
  if (value === undefined) throw badRequest(`path not found: ${path}`);
  return value;
}

function removeAt(doc: Json, path: string): void {
  const { parent, last } = parentOf(doc, pointer(path));
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (last in parent) delete parent[last];
  else throw badRequest(`unable to remove nonexistent key: ${last}`);
}

function addAt(doc: Json, path: string, value: Json, replace: boolean): void {
  const { parent, last } = parentOf(doc, pointer(path));
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (replace) parent[index] = value;
    else parent.splice(index, 0, value);
  } else {
    if (replace && !(last in parent)) throw badRequest(`replace operation does not apply: doc is missing key: ${path}`);
    parent[last] = value;
  }
}

/** RFC 6902 JSON patch. */
export function jsonPatch(target: Json, ops: JsonPatchOp[]): Json {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations');
  const doc = structuredClone(target);
  for (const op of ops) {
    const value = structuredClone(op.value ?? null);
    switch (op.op) {
      case 'add': addAt(doc, op.path, value, false); break;
      case 'replace': addAt(doc, op.path, value, true); break;
      case 'remove': removeAt(doc, op.path); break;
      case 'copy': addAt(doc, op.path, structuredClone(readAt(doc, op.from ?? '')), false); break;
      case 'move': {
        const moved = readAt(doc, op.from ?? '');
        removeAt(doc, op.from ?? '');
        addAt(doc, op.path, moved, false);
        break;
      }
      case 'test':
        if (JSON.stringify(readAt(doc, op.path)) !== JSON.stringify(op.value)) throw new ApiError(422, 'Invalid', `json patch test operation failed at ${op.path}`);
        break;
      default:
        throw badRequest(`unexpected json patch operation: ${op.op}`);
    }
  }
  return doc;
}

/** Applies a patch body of the given Content-Type to an object. */
export function applyPatch(contentType: string, original: unknown, patch: unknown): unknown {
  const type = contentType.split(';')[0].trim();
  switch (type) {
    case 'application/strategic-merge-patch+json': return strategicMerge(original as Json, patch as Json);
    case 'application/merge-patch+json': return mergePatch(original as Json, patch as Json);
    case 'application/json-patch+json': return jsonPatch(original as Json, patch as JsonPatchOp[]);
    default: throw unsupportedMediaType(type);
  }
}
