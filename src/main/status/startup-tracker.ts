// Pod start latency as the pod-startup SLO counts it: from the pod's appearance in
// its source (the merge's ADD) to the first status with every container running and
// Ready, observed here; the SLO leaves out the pod's image pulls, so their span is
// kept too (upstream's firstStartedPulling / lastFinishedPulling). Read by the bench
// through /stats/startup. The record of a pod that is gone is kept for
// FORGOTTEN_RECORD_RETENTION_MS (a reader polling every minute still sees pods that
// came and went between two reads), then dropped, so a node with churn keeps a bounded
// number of records, as upstream's tracker deletes a pod's state with the pod.
import type { ImagePullInterval } from '../../shared/shard-protocol.js';
import { toDate } from '../../shared/status/pod-conditions.js';
import type { Pod, PodStatus } from '../../shared/types.js';

export interface StartupRecord {
  uid: string;
  pod: string;
  seenAtMs: number;
  /** The pod's creationTimestamp when it has one (API pods): where the pod-startup SLI starts. */
  createdAtMs?: number;
  runningAtMs?: number;
  firstStartedPullingAtMs?: number;
  lastFinishedPullingAtMs?: number;
}

/** How long the start record of a pod that is gone stays readable. */
export const FORGOTTEN_RECORD_RETENTION_MS = 10 * 60_000;

export class StartupTracker {
  private readonly recordsByUid = new Map<string, StartupRecord>();
  /** When each gone pod was forgotten, oldest first (a Map keeps insertion order). */
  private readonly forgottenAtMsByUid = new Map<string, number>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  seen(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    if (this.recordsByUid.has(uid)) return;
    this.dropExpired();
    const record: StartupRecord = { uid, pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, seenAtMs: this.nowMs() };
    const createdAtMs = toDate(pod.metadata?.creationTimestamp)?.getTime();
    if (createdAtMs !== undefined) record.createdAtMs = createdAtMs;
    this.recordsByUid.set(uid, record);
  }

  /** The pod is gone from the node: its record expires after the retention. */
  forget(uid: string): void {
    if (this.recordsByUid.has(uid) && !this.forgottenAtMsByUid.has(uid)) this.forgottenAtMsByUid.set(uid, this.nowMs());
  }

  /** Returns the pod's record when this status is the one that saw it start (kubelet_pod_start_duration_seconds observes it). */
  observe(pod: Pod, status: PodStatus): StartupRecord | undefined {
    const record = this.recordsByUid.get(pod.metadata?.uid ?? '');
    if (!record || record.runningAtMs !== undefined || status.phase !== 'Running') return undefined;
    if (!status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return undefined;
    record.runningAtMs = this.nowMs();
    return record;
  }

  /** Widens the pod's pulling span with a sync's pulls, until the pod has run. */
  pulled(pod: Pod, pulls: ImagePullInterval): void {
    const record = this.recordsByUid.get(pod.metadata?.uid ?? '');
    if (!record || record.runningAtMs !== undefined) return;
    record.firstStartedPullingAtMs = Math.min(record.firstStartedPullingAtMs ?? Infinity, pulls.firstStartedAtMs);
    record.lastFinishedPullingAtMs = Math.max(record.lastFinishedPullingAtMs ?? 0, pulls.lastFinishedAtMs);
  }

  records(): StartupRecord[] {
    this.dropExpired();
    return [...this.recordsByUid.values()];
  }

  private dropExpired(): void {
    const cutoffMs = this.nowMs() - FORGOTTEN_RECORD_RETENTION_MS;
    for (const [uid, forgottenAtMs] of this.forgottenAtMsByUid) {
      if (forgottenAtMs > cutoffMs) break;
      this.forgottenAtMsByUid.delete(uid);
      this.recordsByUid.delete(uid);
    }
  }
}
