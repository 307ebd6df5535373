// The main thread's side of ShardSyncRequest (shard-protocol.ts), one per shard
// thread: what that shard was sent of each pod, so that a sync sends the pod only
// when the pod worker's pod object changed (pods are replaced, never edited, on a
// change), the API data only when it differs from what was sent, and the previous
// status only when it is not the one this shard returned last. Every request gets a
// number; what it leaves out it names by the number of the request that carried it.
// The shard checks those numbers and asks again for everything when it does not hold
// them, so what is kept here may be wrong or lost without a sync using a stale spec.
import { isDeepStrictEqual } from 'node:util';
import type { PodApiData, ShardSyncReply, ShardSyncRequest, SyncPodRequest } from '../../shared/shard-protocol.js';
import { isNeedFullRequest } from '../../shared/shard-protocol.js';
import { podUid, type Pod, type PodStatus } from '../../shared/types.js';

interface Sent<T> {
  value: T;
  seq: number;
}

/** What one shard was sent of one pod, and the status its last result carried. */
interface SentPod {
  pod?: Sent<Pod>;
  apiData?: Sent<PodApiData>;
  status?: Sent<PodStatus>;
}

/** How many requests went out whole and how many the shard sent back for everything (the summary log, the bench). */
export interface ShardRequestCounts {
  full: number;
  partial: number;
  resentFull: number;
}

export class ShardRequests {
  private readonly sentByUid = new Map<string, SentPod>();
  private lastSeq = 0;
  readonly counts: ShardRequestCounts = { full: 0, partial: 0, resentFull: 0 };

  /** The request as it crosses the thread boundary; `whole` sends every part (the shard asked for it). */
  encode(request: SyncPodRequest, whole = false): ShardSyncRequest {
    const uid = podUid(request.pod);
    const seq = ++this.lastSeq;
    const sent = whole ? {} : (this.sentByUid.get(uid) ?? {});
    const wire: ShardSyncRequest = {
      uid,
      kind: request.kind,
      seq,
      gracePeriodSeconds: request.gracePeriodSeconds,
      removeFromRuntime: request.removeFromRuntime,
      runtimeKnownEmpty: request.runtimeKnownEmpty,
      runtimeUnchanged: request.runtimeUnchanged,
    };
    const next: SentPod = { status: sent.status };
    if (sent.pod?.value === request.pod) {
      wire.podFrom = sent.pod.seq;
      next.pod = sent.pod;
    } else {
      wire.pod = request.pod;
      next.pod = { value: request.pod, seq };
    }
    if (request.apiData !== undefined && sent.apiData && isDeepStrictEqual(sent.apiData.value, request.apiData)) {
      wire.apiDataFrom = sent.apiData.seq;
      next.apiData = sent.apiData;
    } else if (request.apiData !== undefined) {
      wire.apiData = request.apiData;
      next.apiData = { value: request.apiData, seq };
    }
    if (request.previousStatus !== undefined && sent.status?.value === request.previousStatus) wire.previousStatusFrom = sent.status.seq;
    else wire.previousStatus = request.previousStatus;
    this.sentByUid.set(uid, next);
    if (whole) this.counts.resentFull++;
    else if (wire.pod) this.counts.full++;
    else this.counts.partial++;
    return wire;
  }

  /** The shard answered: its status is what the next request may name; a terminated pod is forgotten on both sides. */
  settled(wire: ShardSyncRequest, reply: ShardSyncReply): void {
    if (isNeedFullRequest(reply)) return;
    const sent = this.sentByUid.get(wire.uid);
    if (wire.kind === 'terminated') this.sentByUid.delete(wire.uid);
    else if (sent) sent.status = { value: reply.status, seq: wire.seq };
  }

  /** The request failed (a lost thread): whatever the shard holds of the pod is unknown now. */
  forget(uid: string): void {
    this.sentByUid.delete(uid);
  }

  /** A replaced thread starts with nothing. */
  clear(): void {
    this.sentByUid.clear();
  }

  /** Pods with something recorded, for tests. */
  get size(): number {
    return this.sentByUid.size;
  }
}
