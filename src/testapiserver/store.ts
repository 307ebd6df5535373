// In-memory storage with one global, monotonically increasing resourceVersion (as
// etcd's revision) and a bounded event history per resource, from which watches
// resume; a resourceVersion older than the history is Expired (410), as the
// apiserver's watch cache answers.
import { randomUUID } from 'node:crypto';
import { alreadyExists, conflict, expired, notFound } from './api-error.js';
import type { KubeObject, StoredEvent } from './types.js';

export const DEFAULT_WATCH_HISTORY_SIZE = 1000;

export type EventListener = (event: StoredEvent) => void;

interface Collection {
  objects: Map<string, KubeObject>;
  history: StoredEvent[];
  /** Events at or below this resourceVersion are no longer in the history. */
  floorRv: number;
  listeners: Set<EventListener>;
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Every object and the resourceVersion counter, as --state-dir keeps them across restarts (etcd's part). */
export interface StoreSnapshot {
  resourceVersion: number;
  objectsByResource: Record<string, KubeObject[]>;
}

/** Identifies a resource in messages: its storage key and group. */
export interface ResourceRef {
  key: string; // 'pods', 'leases.coordination.k8s.io'
  group: string;
  plural: string;
}

export class Store {
  private rv = 0;
  private readonly collections = new Map<string, Collection>();
  /** Called after every change (the state dir saves the store then). */
  onChange?: () => void;

  constructor(private readonly historySize = DEFAULT_WATCH_HISTORY_SIZE) {}

  /** Every object and the resourceVersion counter. */
  snapshot(): StoreSnapshot {
    const objectsByResource: Record<string, KubeObject[]> = {};
    for (const [key, coll] of this.collections) if (coll.objects.size > 0) objectsByResource[key] = [...coll.objects.values()];
    return { resourceVersion: this.rv, objectsByResource };
  }

  /**
   * Loads a snapshot into an empty store. The event history starts empty, so a
   * watch from an older resourceVersion gets 410 Expired and relists, as after a
   * restart of kube-apiserver whose watch cache starts afresh.
   */
  restore(snapshot: StoreSnapshot): void {
    this.rv = snapshot.resourceVersion;
    for (const [key, objects] of Object.entries(snapshot.objectsByResource)) {
      const coll = this.collection(key);
      for (const obj of objects) coll.objects.set(keyOf(obj.metadata.namespace, obj.metadata.name), clone(obj));
    }
  }

  /** The latest resourceVersion handed out, across all resources. */
  currentResourceVersion(): number {
    return this.rv;
  }

  private collection(key: string): Collection {
    let found = this.collections.get(key);
    if (!found) {
      found = { objects: new Map(), history: [], floorRv: this.rv, listeners: new Set() };
      this.collections.set(key, found);
    }
    return found;
  }

  get(res: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.collection(res.key).objects.get(keyOf(namespace, name));
    return found && clone(found);
  }

  mustGet(res: ResourceRef, namespace: string | undefined, name: string): KubeObject {
    const found = this.get(res, namespace, name);
    if (!found) throw notFound(res.group, res.plural, name);
    return found;
  }

  /** Every object of a resource (optionally one namespace) and the list's resourceVersion. */
  list(res: ResourceRef, namespace?: string): { items: KubeObject[]; resourceVersion: number } {
    const items = [...this.collection(res.key).objects.values()]
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .sort((a, b) => keyOf(a.metadata.namespace, a.metadata.name).localeCompare(keyOf(b.metadata.namespace, b.metadata.name)))
      .map(clone);
    return { items, resourceVersion: this.rv };
  }

  /** The stored object as it is, not copied; the caller must not change it (see scan). */
  peek(res: ResourceRef, namespace: string | undefined, name: string): Readonly<KubeObject> | undefined {
    return this.collection(res.key).objects.get(keyOf(namespace, name));
  }

  /**
   * The stored objects of a resource (optionally one namespace) as they are, not
   * copied and in no order: for the authorizers, which read them on every request.
   * The caller must not change them.
   */
  *scan(res: ResourceRef, namespace?: string): Iterable<Readonly<KubeObject>> {
    for (const obj of this.collection(res.key).objects.values()) {
      if (namespace === undefined || obj.metadata.namespace === namespace) yield obj;
    }
  }

  create(res: ResourceRef, obj: KubeObject): KubeObject {
    const coll = this.collection(res.key);
    const key = keyOf(obj.metadata.namespace, obj.metadata.name);
    if (coll.objects.has(key)) throw alreadyExists(res.group, res.plural, obj.metadata.name);
    const stored = clone(obj);
    stored.metadata.uid ??= randomUUID();
    stored.metadata.creationTimestamp ??= new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    return this.commit(coll, key, stored, 'ADDED');
  }

  /**
   * Replaces an object. With `expectedRv` set, a different stored resourceVersion
   * is a Conflict, as an update carrying metadata.resourceVersion is upstream.
   */
  update(res: ResourceRef, obj: KubeObject, expectedRv?: string): KubeObject {
    const coll = this.collection(res.key);
    const key = keyOf(obj.metadata.namespace, obj.metadata.name);
    const current = coll.objects.get(key);
    if (!current) throw notFound(res.group, res.plural, obj.metadata.name);
    if (expectedRv && expectedRv !== current.metadata.resourceVersion) throw conflict(res.group, res.plural, obj.metadata.name);
    const stored = clone(obj);
    stored.metadata.uid = current.metadata.uid;
    stored.metadata.creationTimestamp = current.metadata.creationTimestamp;
    return this.commit(coll, key, stored, 'MODIFIED', current);
  }

  remove(res: ResourceRef, namespace: string | undefined, name: string): KubeObject {
    const coll = this.collection(res.key);
    const key = keyOf(namespace, name);
    const current = coll.objects.get(key);
    if (!current) throw notFound(res.group, res.plural, name);
    coll.objects.delete(key);
    const removed = clone(current);
    removed.metadata.resourceVersion = String(++this.rv);
    this.record(coll, { type: 'DELETED', resourceVersion: this.rv, object: removed, previous: current });
    return clone(removed);
  }

  private commit(coll: Collection, key: string, stored: KubeObject, type: 'ADDED' | 'MODIFIED', previous?: KubeObject): KubeObject {
    stored.metadata.resourceVersion = String(++this.rv);
    coll.objects.set(key, stored);
    this.record(coll, { type, resourceVersion: this.rv, object: stored, previous });
    return clone(stored);
  }

  private record(coll: Collection, event: StoredEvent): void {
    coll.history.push(event);
    while (coll.history.length > this.historySize) {
      const evicted = coll.history.shift();
      if (evicted) coll.floorRv = evicted.resourceVersion;
    }
    for (const listener of coll.listeners) listener(event);
    this.onChange?.();
  }

  /**
   * Subscribes to a resource's events after `fromRv`: the retained ones are
   * replayed first, then live ones follow. Throws Expired (410) when events
   * after `fromRv` have already been dropped from the history.
   */
  watch(res: ResourceRef, fromRv: number, listener: EventListener): () => void {
    const coll = this.collection(res.key);
    if (fromRv < coll.floorRv) throw expired(fromRv, coll.floorRv + 1);
    for (const event of coll.history) if (event.resourceVersion > fromRv) listener(event);
    coll.listeners.add(listener);
    return () => coll.listeners.delete(listener);
  }

  /** Ends every watch (the server going away closes their streams anyway). */
  dropListeners(): void {
    for (const coll of this.collections.values()) coll.listeners.clear();
  }
}
