// metadata.generation of pods, as kube-apiserver keeps it since KEP 5067 (GA in
// 1.35): podStrategy.PrepareForCreate starts it at 1; rest.BeforeUpdate keeps the
// stored value whatever the client sends; updatePodGeneration adds one when the
// spec changed (apimachinery's semantic equality: an empty list or map is the same
// as none); rest.BeforeDelete adds one when a graceful delete first sets
// deletionTimestamp. Status writes, metadata-only changes and bindings (written
// straight to storage upstream) leave it alone.
import type { KubeObject } from './types.js';

const POD_KEY = 'pods';

/** A new pod's generation. */
export function setCreatedGeneration(key: string, obj: KubeObject): void {
  if (key === POD_KEY) obj.metadata.generation = 1;
}

/** The generation an update stores: the current one, plus one for a pod whose spec changed. */
export function setUpdatedGeneration(key: string, current: KubeObject, next: KubeObject): void {
  const stored = current.metadata.generation;
  if (stored === undefined) delete next.metadata.generation;
  else next.metadata.generation = stored;
  if (key === POD_KEY && typeof stored === 'number' && semanticJson(current.spec) !== semanticJson(next.spec)) {
    next.metadata.generation = stored + 1;
  }
}

/** A graceful delete that first sets deletionTimestamp moves the generation on. */
export function setDeletingGeneration(obj: KubeObject): void {
  const generation = obj.metadata.generation;
  if (obj.metadata.deletionTimestamp === undefined && typeof generation === 'number' && generation > 0) obj.metadata.generation = generation + 1;
}

/** JSON with sorted keys in which null, [] and {} are absent, as Semantic.DeepEqual sees nil and empty alike. */
function semanticJson(value: unknown): string {
  return JSON.stringify(pruned(value)) ?? '';
}

function pruned(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => pruned(item) ?? null);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = pruned((value as Record<string, unknown>)[key]);
    if (item !== undefined) result[key] = item;
  }
  return Object.keys(result).length > 0 ? result : undefined;
}
