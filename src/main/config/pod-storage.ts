// The pod config merge: upstream's podStorage (pkg/kubelet/config/config.go) in
// PodConfigNotificationIncremental mode. It holds the pods of each source by UID,
// turns each source's change (SET / ADD / UPDATE / DELETE / REMOVE) into the
// minimal ADD / UPDATE / DELETE / REMOVE / RECONCILE updates for the sync loop,
// and tracks which sources have delivered their first full SET.
import type { Logger } from 'pino';
import { ErrorCodes } from '../../shared/errors.js';
import { CONFIG_MIRROR_ANNOTATION, CONFIG_SEEN_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from '../../shared/labels.js';
import { sortedKeysJson } from '../../shared/canonical-json.js';
import { podFullName, podUid, type ObjectMeta, type Pod, type PodOperation, type PodUpdate } from '../../shared/types.js';
import { podRef } from '../../shared/pod-kinds.js';

/** Annotations the kubelet itself puts on pods; a source changing them is not a change of the pod. */
const LOCAL_ANNOTATIONS = [CONFIG_SOURCE_ANNOTATION, CONFIG_MIRROR_ANNOTATION, CONFIG_SEEN_ANNOTATION];

/** One pod of a change: a copy to merge, or (a SET's unchanged object) the stored pod itself. */
interface SetEntry {
  pod: Pod;
  /** The pod as the source names it now, for the duplicate checks (a stored pod keeps the name it was added with). */
  named: Pod;
  /** The source's own object the copy was made from, remembered once merged. */
  sourceObject?: object;
  unchanged: boolean;
}

interface MergeResult {
  adds: Pod[];
  updates: Pod[];
  deletes: Pod[];
  removes: Pod[];
  reconciles: Pod[];
}

/** What checkAndUpdatePod decided; at most one is true. */
export interface PodChange {
  needUpdate: boolean;
  needReconcile: boolean;
  needGracefulDelete: boolean;
}

export class PodStorage {
  private readonly podsBySource = new Map<string, Map<string, Pod>>();
  private readonly sourcesSeen = new Set<string>();
  /**
   * Per source, the source's own object each stored pod was last merged from. The API
   * source hands every SET the informer's objects, which are replaced, never edited,
   * when the server changes a pod: the same object again is unchanged and needs neither
   * a copy nor a comparison, so a burst of watch events costs the pods it changed, not
   * every pod of the node.
   */
  private readonly mergedFrom = new Map<string, Map<string, object>>();

  constructor(
    private readonly onUpdate: (update: PodUpdate) => void,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Merges one source's change and delivers the resulting updates, in upstream's order, to onUpdate. */
  merge(source: string, update: PodUpdate): void {
    const seenBefore = this.sourcesSeen.has(source);
    const result = this.mergeChange(source, update);
    const firstSet = !seenBefore && this.sourcesSeen.has(source);
    this.deliver('REMOVE', source, result.removes);
    this.deliver('ADD', source, result.adds);
    this.deliver('UPDATE', source, result.updates);
    this.deliver('DELETE', source, result.deletes);
    if (firstSet && result.adds.length === 0 && result.updates.length === 0 && result.deletes.length === 0) {
      // An empty ADD tells the kubelet the source is ready, as upstream does.
      this.onUpdate({ op: 'ADD', source, pods: [] });
    }
    this.deliver('RECONCILE', source, result.reconciles);
  }

  /** True once every expected source has sent at least one SET (upstream's seenSources). */
  sourcesReady(expected: readonly string[]): boolean {
    return expected.every((source) => this.sourcesSeen.has(source));
  }

  /** A copy of every pod of every source (upstream's MergedState). */
  mergedState(): Pod[] {
    return [...this.podsBySource].flatMap(([source, pods]) => this.copies(source, [...pods.values()]));
  }

  /**
   * Hands the sync loop copies of `pods`. A pod that cannot be copied is left out
   * with a log line, and an error thrown by the receiver is logged, not passed to
   * the source: one pod's trouble must not stop the others, nor the process.
   */
  private deliver(op: PodOperation, source: string, pods: Pod[]): void {
    if (pods.length === 0) return;
    const copies = this.copies(source, pods);
    try {
      this.onUpdate({ op, source, pods: copies });
    } catch (err) {
      this.logger.error({ code: ErrorCodes.INTERNAL, source, op, pods: copies.map(podRef), err: errorText(err) }, 'Handling a pod update failed');
    }
  }

  /** Structured copies of the pods that can be copied; the others are logged (once per merge) and dropped. */
  private copies(source: string, pods: Pod[]): Pod[] {
    const copies: Pod[] = [];
    for (const pod of pods) {
      try {
        copies.push(structuredClone(pod));
      } catch (err) {
        this.rejectPod(source, pod, err);
      }
    }
    return copies;
  }

  private rejectPod(source: string, pod: unknown, err: unknown): void {
    this.logger.error({ code: ErrorCodes.MANIFEST_INVALID, source, pod: safePodRef(pod), reason: errorText(err) }, 'Pod from source cannot be used, ignoring it');
  }

  private mergeChange(source: string, update: PodUpdate): MergeResult {
    const result: MergeResult = { adds: [], updates: [], deletes: [], removes: [], reconciles: [] };
    let pods = this.podsBySource.get(source) ?? new Map<string, Pod>();
    const given = Array.isArray(update.pods) ? update.pods : [];
    if (update.op === 'SET') {
      this.sourcesSeen.add(source);
      const oldPods = pods;
      pods = new Map();
      this.updatePods(source, this.setEntries(source, given, oldPods), oldPods, pods, result);
      for (const [uid, existing] of oldPods) if (!pods.has(uid)) result.removes.push(existing);
      this.podsBySource.set(source, pods);
      this.forgetSourceObjectsNotIn(source, pods);
      return result;
    }
    // Sources keep their objects; the storage annotates and keeps its own copies.
    const incoming = this.copies(source, given.filter((pod) => this.isPodShaped(source, pod)));
    // A pod changed another way than by a SET: its last SET object no longer says what is stored.
    for (const pod of incoming) this.mergedFrom.get(source)?.delete(podUid(pod));
    switch (update.op) {
      case 'ADD':
      case 'UPDATE':
      case 'DELETE':
        this.logger.debug({ source, op: update.op, pods: incoming.map(podRef) }, 'Pods from source');
        this.updatePods(source, incoming, pods, pods, result);
        break;
      case 'REMOVE':
        this.logger.debug({ source, pods: incoming.map(podRef) }, 'Removing pods from source');
        for (const pod of incoming) {
          const existing = pods.get(podUid(pod));
          if (existing === undefined) continue;
          pods.delete(podUid(pod));
          result.removes.push(existing);
        }
        break;
      default:
        this.logger.warn({ source, op: update.op }, 'Received invalid update type');
    }
    this.podsBySource.set(source, pods);
    return result;
  }

  /**
   * A SET's pods in the source's order: the stored pod itself for an object merged
   * before under the same UID (unchanged, see mergedAs), a copy of any other.
   */
  private setEntries(source: string, given: unknown[], oldPods: Map<string, Pod>): SetEntry[] {
    const entries: SetEntry[] = [];
    const mergedFrom = this.mergedFrom.get(source);
    for (const pod of given) {
      const uid = (pod as Pod | null)?.metadata?.uid;
      const stored = typeof uid === 'string' && mergedFrom?.get(uid) === pod ? oldPods.get(uid) : undefined;
      if (stored) {
        entries.push({ pod: stored, named: pod as Pod, unchanged: true });
        continue;
      }
      if (!this.isPodShaped(source, pod)) continue;
      const [copy] = this.copies(source, [pod]);
      if (copy) entries.push({ pod: copy, named: copy, sourceObject: pod, unchanged: false });
    }
    return entries;
  }

  private rememberSourceObject(source: string, uid: string, sourceObject: object): void {
    let bySource = this.mergedFrom.get(source);
    if (!bySource) this.mergedFrom.set(source, (bySource = new Map()));
    bySource.set(uid, sourceObject);
  }

  private forgetSourceObjectsNotIn(source: string, pods: Map<string, Pod>): void {
    const bySource = this.mergedFrom.get(source);
    if (!bySource) return;
    for (const uid of bySource.keys()) if (!pods.has(uid)) bySource.delete(uid);
  }

  /** Upstream's updatePodsFunc: compares each new pod with its stored self, or adds it. */
  private updatePods(source: string, newPods: Array<Pod | SetEntry>, oldPods: Map<string, Pod>, pods: Map<string, Pod>, result: MergeResult): void {
    const entries = newPods.map((entry): SetEntry => ('unchanged' in entry ? entry : { pod: entry, named: entry, unchanged: false }));
    for (const { pod: ref, sourceObject, unchanged } of this.filterInvalidPods(source, entries)) {
      if (unchanged) {
        pods.set(podUid(ref), ref);
        continue;
      }
      try {
        this.updatePod(source, ref, oldPods, pods, result);
        if (sourceObject) this.rememberSourceObject(source, podUid(ref), sourceObject);
      } catch (err) {
        // The stored pod (if any) stays as it was; a SET then keeps it rather than removing it for a bad copy.
        this.rejectPod(source, ref, err);
        const existing = oldPods.get(podUid(ref));
        if (existing) pods.set(podUid(ref), existing);
      }
    }
  }

  private updatePod(source: string, ref: Pod, oldPods: Map<string, Pod>, pods: Map<string, Pod>, result: MergeResult): void {
    const metadata = (ref.metadata ??= {});
    // Annotate with the source before any comparison.
    metadata.annotations = { ...metadata.annotations, [CONFIG_SOURCE_ANNOTATION]: source };
    const uid = podUid(ref);
    const existing = oldPods.get(uid);
    if (existing) {
      pods.set(uid, existing);
      const change = checkAndUpdatePod(existing, ref);
      if (change.needUpdate) result.updates.push(existing);
      else if (change.needReconcile) result.reconciles.push(existing);
      else if (change.needGracefulDelete) result.deletes.push(existing);
      return;
    }
    // recordFirstSeenTime
    metadata.annotations[CONFIG_SEEN_ANNOTATION] = this.now().toISOString();
    pods.set(uid, ref);
    result.adds.push(ref);
  }

  /** A pod the merge can key: an object with a metadata object (sources validate the rest). */
  private isPodShaped(source: string, pod: unknown): pod is Pod {
    const metadata = (pod as Pod | null)?.metadata;
    const uid = metadata?.uid;
    if (typeof pod === 'object' && pod !== null && typeof metadata === 'object' && metadata !== null && (uid === undefined || typeof uid === 'string')) return true;
    this.rejectPod(source, pod, new Error('not a pod: metadata must be an object with a string uid'));
    return false;
  }

  /**
   * Upstream's filterInvalidPods: sources validate pods; here a duplicate full name
   * is dropped, and so is a duplicate UID (a manifest may set metadata.uid), which
   * upstream would ADD twice while holding one.
   */
  private filterInvalidPods(source: string, entries: SetEntry[]): SetEntry[] {
    const names = new Set<string>();
    const uids = new Set<string>();
    return entries.filter(({ named: pod }, index) => {
      const name = podFullName(pod);
      const uid = podUid(pod);
      const duplicate = names.has(name) ? 'name' : uids.has(uid) ? 'UID' : undefined;
      names.add(name);
      uids.add(uid);
      if (!duplicate) return true;
      this.logger.error(
        { code: ErrorCodes.MANIFEST_DUPLICATE, source, pod: podRef(pod), uid, index },
        `Pod failed validation due to duplicate pod ${duplicate}, ignoring`,
      );
      return false;
    });
  }
}

/**
 * As upstream's checkAndUpdatePod: updates `existing` from `ref` and says whether
 * this is an UPDATE (spec, labels, deletion fields or non-local annotations
 * changed), a graceful DELETE (such a change with deletionTimestamp set), or a
 * RECONCILE (only the status changed).
 */
export function checkAndUpdatePod(existing: Pod, ref: Pod): PodChange {
  const change: PodChange = { needUpdate: false, needReconcile: false, needGracefulDelete: false };
  if (!podsDifferSemantically(existing, ref)) {
    // Only a status change: the kubelet is the source of truth for status, so reconcile it.
    if (sortedKeysJson(existing.status) !== sortedKeysJson(ref.status)) {
      setOrDelete(existing, 'status', ref.status);
      change.needReconcile = true;
    }
    return change;
  }
  const existingMeta = (existing.metadata ??= {});
  const refMeta = ref.metadata ?? {};
  setOrDelete(existing, 'spec', ref.spec);
  setOrDelete(existingMeta, 'labels', refMeta.labels);
  setOrDelete(existingMeta, 'deletionTimestamp', refMeta.deletionTimestamp);
  setOrDelete(existingMeta, 'deletionGracePeriodSeconds', refMeta.deletionGracePeriodSeconds);
  // The status the next sync writes reports the generation it was computed from.
  setOrDelete(existingMeta, 'generation', refMeta.generation);
  setOrDelete(existing, 'status', ref.status);
  existingMeta.annotations = mergedAnnotations(existingMeta, refMeta);
  if (refMeta.deletionTimestamp !== undefined && refMeta.deletionTimestamp !== null) change.needGracefulDelete = true;
  else change.needUpdate = true;
  return change;
}

/** Upstream's podsDifferSemantically. */
export function podsDifferSemantically(existing: Pod, ref: Pod): boolean {
  const a = existing.metadata ?? {};
  const b = ref.metadata ?? {};
  return (
    sortedKeysJson(existing.spec) !== sortedKeysJson(ref.spec) ||
    sortedKeysJson(a.labels) !== sortedKeysJson(b.labels) ||
    sortedKeysJson(a.deletionTimestamp) !== sortedKeysJson(b.deletionTimestamp) ||
    sortedKeysJson(a.deletionGracePeriodSeconds) !== sortedKeysJson(b.deletionGracePeriodSeconds) ||
    !annotationsEqualIgnoringLocal(a.annotations, b.annotations)
  );
}

function annotationsEqualIgnoringLocal(existing: Record<string, string> = {}, candidate: Record<string, string> = {}): boolean {
  const relevant = (annotations: Record<string, string>) =>
    Object.entries(annotations).filter(([key]) => !LOCAL_ANNOTATIONS.includes(key));
  const existingEntries = relevant(existing);
  const candidateEntries = relevant(candidate);
  return existingEntries.length === candidateEntries.length && candidateEntries.every(([key, value]) => existing[key] === value);
}

/** Upstream's updateAnnotations: the source's annotations plus the kubelet's own, kept from the stored pod. */
function mergedAnnotations(existing: ObjectMeta, ref: ObjectMeta): Record<string, string> {
  const annotations: Record<string, string> = { ...ref.annotations };
  for (const key of LOCAL_ANNOTATIONS) {
    const value = existing.annotations?.[key];
    if (value !== undefined) annotations[key] = value;
  }
  return annotations;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function safePodRef(pod: unknown): string {
  try {
    return podRef(pod as Pod);
  } catch {
    return '(not a pod)';
  }
}

function setOrDelete<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

