// Pod start latency as the pod-startup SLO counts it: from the pod's appearance in
// its source (the merge's ADD) to the first status with every container running and
// Ready, observed here; the SLO leaves out the pod's image pulls, so their span is
// kept too (upstream's firstStartedPulling / lastFinishedPulling). Read by the bench
// through /stats/startup.
import type { ImagePullInterval } from '../../shared/shard-protocol.js';
import type { Pod, PodStatus } from '../../shared/types.js';

export interface StartupRecord {
  uid: string;
  pod: string;
  seenAtMs: number;
  runningAtMs?: number;
  firstStartedPullingAtMs?: number;
  lastFinishedPullingAtMs?: number;
}

export class StartupTracker {
  private readonly recordsByUid = new Map<string, StartupRecord>();

  seen(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    if (this.recordsByUid.has(uid)) return;
    this.recordsByUid.set(uid, { uid, pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, seenAtMs: Date.now() });
  }

  observe(pod: Pod, status: PodStatus): void {
    const record = this.recordsByUid.get(pod.metadata?.uid ?? '');
    if (!record || record.runningAtMs !== undefined || status.phase !== 'Running') return;
    if (status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) record.runningAtMs = Date.now();
  }

  /** Widens the pod's pulling span with a sync's pulls, until the pod has run. */
  pulled(pod: Pod, pulls: ImagePullInterval): void {
    const record = this.recordsByUid.get(pod.metadata?.uid ?? '');
    if (!record || record.runningAtMs !== undefined) return;
    record.firstStartedPullingAtMs = Math.min(record.firstStartedPullingAtMs ?? Infinity, pulls.firstStartedAtMs);
    record.lastFinishedPullingAtMs = Math.max(record.lastFinishedPullingAtMs ?? 0, pulls.lastFinishedAtMs);
  }

  records(): StartupRecord[] {
    return [...this.recordsByUid.values()];
  }
}
