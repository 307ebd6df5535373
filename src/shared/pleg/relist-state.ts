// What the PLEG remembers of the runtime between relists (upstream's podRecords),
// kept per pod so that two kinds of relist can feed the one diff: the periodic
// full relist, and the per-pod relist a container event triggers (the evented
// PLEG). Both may be in flight at once, and a reply says nothing of when the
// runtime produced it; what orders them is when each relist began. A relist is
// applied to a pod only when it began after the newest relist already applied to
// that pod, so a pod's view only ever moves forward: what a per-pod relist emitted
// is never emitted again by the full relist that follows, and an older reply never
// takes a pod back to a state it already left. Pure, so it is tested on its own.
import type { PlegEvent } from '../shard-protocol.js';
import { diffSnapshots, type RelistEntry, type RelistSnapshot } from './relist-diff.js';

/** One relist's objects, by pod UID, then by sandbox or container ID. */
export type PodSnapshots = Map<string, RelistSnapshot>;

const NO_OBJECTS: RelistSnapshot = new Map();

export class RelistState {
  private readonly objectsByPod: PodSnapshots = new Map();
  private nextSeq = 1;
  /** The beginning (seq) of the newest full relist applied. */
  private fullAsOf = 0;
  /** Pods whose newest applied relist is a per-pod one begun after `fullAsOf`. */
  private readonly podAsOf = new Map<string, number>();

  /** Call as a relist begins, before its first list call: its place in the order. */
  begin(): number {
    return this.nextSeq++;
  }

  /** A full relist's objects: events for every pod this relist is the newest news of. */
  applyFull(seq: number, current: PodSnapshots): PlegEvent[] {
    const events: PlegEvent[] = [];
    for (const [uid, objects] of current) {
      if (this.isNewerFor(uid, seq)) events.push(...this.replacePod(uid, objects));
    }
    for (const uid of [...this.objectsByPod.keys()]) {
      if (!current.has(uid) && this.isNewerFor(uid, seq)) events.push(...this.replacePod(uid, NO_OBJECTS));
    }
    this.fullAsOf = Math.max(this.fullAsOf, seq);
    for (const [uid, asOf] of this.podAsOf) {
      if (asOf <= this.fullAsOf) this.podAsOf.delete(uid);
    }
    return events;
  }

  /** One pod's objects from a per-pod relist: its events, or none when a newer relist already covered the pod. */
  applyPod(seq: number, uid: string, objects: RelistSnapshot): PlegEvent[] {
    if (!this.isNewerFor(uid, seq)) return [];
    const events = this.replacePod(uid, objects);
    this.podAsOf.set(uid, seq);
    return events;
  }

  /** The remembered objects of one pod. */
  objectsOf(uid: string): ReadonlyMap<string, RelistEntry> {
    return this.objectsByPod.get(uid) ?? NO_OBJECTS;
  }

  private isNewerFor(uid: string, seq: number): boolean {
    return seq > Math.max(this.fullAsOf, this.podAsOf.get(uid) ?? 0);
  }

  private replacePod(uid: string, objects: RelistSnapshot): PlegEvent[] {
    const events = diffSnapshots(this.objectsByPod.get(uid) ?? NO_OBJECTS, objects);
    if (objects.size === 0) this.objectsByPod.delete(uid);
    else this.objectsByPod.set(uid, objects);
    return events;
  }
}
