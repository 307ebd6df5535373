// What a shard thread was last sent of each of its pods (the spec, the API data) and
// the status it last returned, so that the main thread need not send them again
// (ShardSyncRequest in shard-protocol.ts). A cache the shard may lose at any time: a
// request naming anything it does not hold exactly, by the number of the request that
// carried it, is answered with a NeedFullRequest and syncs nothing. A pod's entry goes
// with its SyncTerminatedPod: a pod that runs again is sent whole.
import type { PodApiData, ShardSyncReply, ShardSyncRequest, SyncPodRequest, SyncPodResult } from '../shared/shard-protocol.js';
import type { Pod, PodStatus } from '../shared/types.js';

interface Held<T> {
  value: T;
  /** The request that carried it (or, for a status, whose result it was). */
  seq: number;
}

interface CachedPod {
  pod: Held<Pod>;
  apiData?: Held<PodApiData>;
  status?: Held<PodStatus>;
}

/**
 * What the request means by one of its parts: the value it carries (held from now on
 * under its own number), nothing when it names none, the held value when it names
 * that one, or a miss (null) when it names one this shard does not hold.
 */
function pick<T>(inline: T | undefined, namedSeq: number | undefined, seq: number, held: Held<T> | undefined): Held<T> | undefined | null {
  if (inline !== undefined) return { value: inline, seq };
  if (namedSeq === undefined) return undefined;
  return held?.seq === namedSeq ? held : null;
}

export class ShardPodCache {
  private readonly podsByUid = new Map<string, CachedPod>();

  /** Runs the request through `sync` with what it names filled in, or answers that the shard needs everything. */
  async run(wire: ShardSyncRequest, sync: (request: SyncPodRequest) => Promise<SyncPodResult>): Promise<ShardSyncReply> {
    const cached = this.podsByUid.get(wire.uid);
    const pod = pick(wire.pod, wire.podFrom, wire.seq, cached?.pod);
    const apiData = pick(wire.apiData, wire.apiDataFrom, wire.seq, cached?.apiData);
    const previousStatus = pick(wire.previousStatus, wire.previousStatusFrom, wire.seq, cached?.status);
    if (!pod || apiData === null || previousStatus === null) return { needFull: true, uid: wire.uid };
    const result = await sync({
      kind: wire.kind,
      pod: pod.value,
      gracePeriodSeconds: wire.gracePeriodSeconds,
      removeFromRuntime: wire.removeFromRuntime,
      runtimeKnownEmpty: wire.runtimeKnownEmpty,
      runtimeUnchanged: wire.runtimeUnchanged,
      previousStatus: previousStatus?.value,
      apiData: apiData?.value,
    });
    if (wire.kind === 'terminated') this.podsByUid.delete(wire.uid);
    else this.podsByUid.set(wire.uid, { pod, apiData, status: { value: result.status, seq: wire.seq } });
    return result;
  }

  /** Pods held, for tests. */
  get size(): number {
    return this.podsByUid.size;
  }
}
